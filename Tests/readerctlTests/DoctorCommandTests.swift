import BLETransport
import BlueZTestSupport
import Foundation
import Testing

/// `readerctl doctor` and the first-run errors of every Bluetooth command, run as a person
/// would: without a system bus (DBUS_SYSTEM_BUS_ADDRESS at a socket that is not there), and
/// against a private dbus-daemon with or without a fake bluetoothd. Each failing check prints
/// FAIL, the fix under it, and `skipped` for what needs it. (Without libdbus:
/// WithoutLibDBusTests.)
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct DoctorCommandTests {
    static let noBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/cardreaderkit-no-bus"]

    /// The line of check `name`, e.g. `FAIL     system bus …`.
    static func line(_ name: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.dropFirst(9).hasPrefix(name + " ") }.map(String.init)
    }

    static func expect(_ name: String, _ status: String, in output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let line = line(name, in: output)
        #expect(line?.hasPrefix(status + " ") == true, "\(name): \(line ?? "no line")\n\(output)", sourceLocation: sourceLocation)
    }

    @Test func withoutASystemBusTheBusFailsWithItsFixAndTheRestIsSkipped() async throws {
        let result = try await ReaderctlProcess.run(["doctor"], environment: Self.noBus)
        #expect(result.status == 10, "\(result.standardError)")
        let output = result.standardOutput
        Self.expect("libdbus", "ok", in: output)
        Self.expect("system bus", "FAIL", in: output)
        #expect(output.contains("cannot reach the D-Bus system bus (org.freedesktop.DBus.Error."))
        #expect(output.contains("\n         fix: is dbus running? is bluetoothd?"))
        for name in ["bluetoothd", "bus policy", "adapter", "powered", "discovery"] {
            Self.expect(name, "skipped", in: output)
        }
        #expect(Self.line("adapter", in: output)?.hasSuffix("needs system bus") == true)
        #expect(Self.line("reader found", in: output) == nil, "reader checks need --reader")
        #expect(output.hasSuffix("1 of 11 checks failed (system bus), 9 skipped: see the fix under each FAIL.\n"))
    }

    @Test func jsonHasEveryCheckWithItsStatusAndFix() async throws {
        let result = try await ReaderctlProcess.run(
            ["doctor", "--json", "--reader", "VPOS"], environment: Self.noBus)
        #expect(result.status == 10)
        let report = try JSONDecoder().decode(Report.self, from: Data(result.standardOutput.utf8))
        #expect(report.ok == false)
        #expect(report.checks.map(\.check) == [
            "libdbus", "system bus", "bluetoothd", "bus policy", "BlueZ version", "adapter", "powered", "rfkill", "LE",
            "LE links", "discovery", "reader found", "connected", "reader service", "TX characteristic", "RX characteristic",
            "link security", "notifications", "GET INFO",
        ])
        #expect(report.checks.map(\.status) == ["ok", "FAIL"] + Array(repeating: "skipped", count: 17))
        #expect(report.checks[1].fix?.hasPrefix("is dbus running?") == true)
        #expect(report.checks[1].milliseconds != nil)
        #expect(report.checks[2].milliseconds == nil)
    }

    /// `info` (and every reader command) prints the same fix under its error, and in JSON.
    @Test func aReaderCommandWithoutASystemBusSaysWhatToDo() async throws {
        let result = try await ReaderctlProcess.run(
            ["info", "--reader", "VPOS", "--json"], environment: Self.noBus)
        #expect(result.status == 6)
        #expect(result.standardError.contains("readerctl: could not connect to VPOS: dbus-unreachable: cannot reach the D-Bus system bus"))
        #expect(result.standardError.contains("\n  fix: is dbus running? is bluetoothd?"))
        #expect(result.standardOutput.contains(#""fix":"is dbus running? is bluetoothd?"#))
    }

    @Test func onABusWithoutBluetoothdBluetoothdFails() async throws {
        let output = try await Self.doctor(withBluetoothd: nil)
        Self.expect("system bus", "ok", in: output)
        Self.expect("bluetoothd", "FAIL", in: output)
        #expect(output.contains("fix: start bluetoothd: `sudo systemctl start bluetooth`"))
        Self.expect("adapter", "skipped", in: output)
    }

    @Test func aBusPolicyDenyingBlueZFailsThePolicyCheck() async throws {
        let output = try await Self.doctor(denying: ["org.bluez"], withBluetoothd: { _ in })
        Self.expect("bluetoothd", "ok", in: output)
        Self.expect("bus policy", "FAIL", in: output)
        #expect(output.contains("org.freedesktop.DBus.Error.AccessDenied"))
        #expect(output.contains("`sudo usermod -aG bluetooth $USER`"))
        Self.expect("BlueZ version", "skipped", in: output)
    }

    @Test func noAdapterFailsTheAdapterCheck() async throws {
        let output = try await Self.doctor(withBluetoothd: { _ in })
        Self.expect("bus policy", "ok", in: output)
        // The fake bluetoothd is this test process, which is not asked for a version.
        #expect(Self.line("BlueZ version", in: output)?.contains("not bluetoothd: not asked") == true)
        Self.expect("adapter", "FAIL", in: output)
        #expect(output.contains("fix: `bluetoothctl list` shows the adapters"))
        Self.expect("powered", "skipped", in: output)
    }

    /// An adapter that is off: `powered` fails naming the command for this adapter; rfkill
    /// and LE still run (they may say why); the discovery is skipped.
    @Test func anAdapterPoweredOffFailsPoweredAndSkipsTheDiscovery() async throws {
        let output = try await Self.doctor(["--adapter", "hci1"]) { fake in
            try fake.addAdapter("hci0", powered: true)
            try fake.addAdapter("hci1", powered: false, properties: [
                DBusProperty("Roles", value: .stringArray(["central", "peripheral"])),
                DBusProperty("Modalias", value: .string("usb:v1D6Bp0246d0542")),
            ])
        }
        #expect(Self.line("BlueZ version", in: output)?.hasSuffix("5.66 (hci1's Modalias)") == true, "\(output)")
        Self.expect("adapter", "ok", in: output)
        Self.expect("powered", "FAIL", in: output)
        #expect(output.contains("fix: power it on: `bluetoothctl power on` (the default adapter) or `btmgmt --index hci1 power on`"))
        Self.expect("LE", "ok", in: output)
        #expect(Self.line("rfkill", in: output) != nil)
        Self.expect("discovery", "skipped", in: output)
        #expect(Self.line("discovery", in: output)?.hasSuffix("needs powered") == true)
    }

    /// The devices each adapter holds connected, counted per adapter, with a warning (and
    /// its fix) at `--le-link-limit`: here hci0 holds 3 at a limit of 3, hci1 one.
    @Test func theLinksEachAdapterHoldsAreCountedAndWarnedOfAtTheLimit() async throws {
        let output = try await Self.doctor(["--adapter", "hci1", "--le-link-limit", "3"]) { fake in
            try fake.addAdapter("hci0", powered: true)
            try fake.addAdapter("hci1", powered: false)
            for (adapter, index, connected) in [("hci0", 1, true), ("hci0", 2, true), ("hci0", 3, true), ("hci0", 4, false), ("hci1", 5, true)] {
                let address = "00:AA:02:00:00:0\(index)"
                try fake.connection.export(
                    DBusObjectPath("/org/bluez/\(adapter)/dev_\(address.replacingOccurrences(of: ":", with: "_"))"),
                    interfaces: [
                        DBusInterface("org.bluez.Device1", properties: [
                            DBusProperty("Address", value: .string(address)),
                            DBusProperty("Name", value: .string("VPOS3356-000\(index)")),
                            DBusProperty("Adapter", value: .objectPath(DBusObjectPath("/org/bluez/\(adapter)"))),
                            DBusProperty("Connected", value: .bool(connected)),
                        ])
                    ])
            }
        }
        Self.expect("LE links", "WARN", in: output)
        let line = Self.line("LE links", in: output) ?? ""
        #expect(line.contains("hci0: 3 (VPOS3356-0001, VPOS3356-0002, VPOS3356-0003); hci1: 1 (VPOS3356-0005)"), "\(line)")
        #expect(line.contains("warns at 3 per adapter (an assumption"))
        #expect(output.contains("fix: hci0 holds 3 or more links: a further reader may fail to connect"))
    }

    /// Runs `readerctl doctor` with a private dbus-daemon as its system bus (its policy
    /// denying `denying`) and, unless `withBluetoothd` is nil, a fake bluetoothd on it that
    /// the closure sets up; it must exit 10. Its standard output.
    static func doctor(
        _ arguments: [String] = [], denying: [String] = [], withBluetoothd setUp: ((FakeBlueZ) throws -> Void)?
    ) async throws -> String {
        let bus = try await TestBus.start(denying: denying)
        let fake = setUp == nil ? nil : try await FakeBlueZ.start(on: bus)
        if let fake, let setUp { try setUp(fake) }
        let result = try await ReaderctlProcess.run(
            ["doctor"] + arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        await fake?.connection.close()
        #expect(result.status == 10, "\(result.standardOutput)\(result.standardError)")
        return result.standardOutput
    }

    private struct Report: Decodable {
        struct Check: Decodable {
            var check: String
            var status: String
            var found: String
            var fix: String?
            var milliseconds: Int?
        }
        var ok: Bool
        var checks: [Check]
    }
}
