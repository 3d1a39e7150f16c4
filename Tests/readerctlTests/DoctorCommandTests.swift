import BLETransport
import BlueZTestSupport
import Foundation
import Testing

/// `readerctl doctor` and the first-run errors of every Bluetooth command, run as a person
/// would: without libdbus, without a system bus (DBUS_SYSTEM_BUS_ADDRESS at a socket that
/// is not there), and against a private dbus-daemon with or without a fake bluetoothd.
/// Each failing check prints FAIL, the fix under it, and `skipped` for what needs it.
@Suite struct DoctorCommandTests {
    static let noBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/cardreaderkit-no-bus"]

    /// The line of check `name`, e.g. `FAIL     system bus …`.
    static func line(_ name: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.dropFirst(9).hasPrefix(name + " ") }.map(String.init)
    }

    static func expect(_ name: String, _ status: String, in output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let line = line(name, in: output)
        #expect(line?.hasPrefix(status + " ") == true, "\(name): \(line ?? "no line")\n\(output)", sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: TestBus.isAvailable, "needs libdbus-1.so.3: apt-get install dbus"))
    func withoutASystemBusTheBusFailsWithItsFixAndTheRestIsSkipped() async throws {
        let result = try await ReaderctlProcess.runInBackground(["doctor"], environment: Self.noBus)
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
        #expect(output.hasSuffix("1 of 10 checks failed (system bus), 8 skipped: see the fix under each FAIL.\n"))
    }

    @Test(.enabled(if: TestBus.isAvailable, "needs libdbus-1.so.3: apt-get install dbus"))
    func jsonHasEveryCheckWithItsStatusAndFix() async throws {
        let result = try await ReaderctlProcess.runInBackground(
            ["doctor", "--json", "--reader", "VPOS"], environment: Self.noBus)
        #expect(result.status == 10)
        let report = try JSONDecoder().decode(Report.self, from: Data(result.standardOutput.utf8))
        #expect(report.ok == false)
        #expect(report.checks.map(\.check) == [
            "libdbus", "system bus", "bluetoothd", "bus policy", "BlueZ version", "adapter", "powered", "rfkill", "LE",
            "discovery", "reader found", "connected", "reader service", "TX characteristic", "RX characteristic",
            "notifications", "GET INFO",
        ])
        #expect(report.checks.map(\.status) == ["ok", "FAIL"] + Array(repeating: "skipped", count: 15))
        #expect(report.checks[1].fix?.hasPrefix("is dbus running?") == true)
        #expect(report.checks[1].milliseconds != nil)
        #expect(report.checks[2].milliseconds == nil)
    }

    @Test func withoutLibdbusLibdbusFails() throws {
        let result = try ReaderctlProcess.run(["doctor"], environment: WithoutLibDBusTests.missing)
        #expect(result.status == 10)
        Self.expect("libdbus", "FAIL", in: result.standardOutput)
        #expect(result.standardOutput.contains("fix: install libdbus: `sudo apt-get install libdbus-1-3`"))
        Self.expect("system bus", "skipped", in: result.standardOutput)
    }

    /// `info` (and every reader command) prints the same fix under its error, and in JSON.
    @Test(.enabled(if: TestBus.isAvailable, "needs libdbus-1.so.3: apt-get install dbus"))
    func aReaderCommandWithoutASystemBusSaysWhatToDo() async throws {
        let result = try await ReaderctlProcess.runInBackground(
            ["info", "--reader", "VPOS", "--json"], environment: Self.noBus)
        #expect(result.status == 6)
        #expect(result.standardError.contains("readerctl: could not connect to VPOS: dbus-unreachable: cannot reach the D-Bus system bus"))
        #expect(result.standardError.contains("\n  fix: is dbus running? is bluetoothd?"))
        #expect(result.standardOutput.contains(#""fix":"is dbus running? is bluetoothd?"#))
    }

    @Test(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
    func onABusWithoutBluetoothdBluetoothdFails() async throws {
        let bus = try TestBus()
        let result = try await Self.doctor(on: bus)
        Self.expect("system bus", "ok", in: result.standardOutput)
        Self.expect("bluetoothd", "FAIL", in: result.standardOutput)
        #expect(result.standardOutput.contains("fix: start bluetoothd: `sudo systemctl start bluetooth`"))
        Self.expect("adapter", "skipped", in: result.standardOutput)
    }

    @Test(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
    func aBusPolicyDenyingBlueZFailsThePolicyCheck() async throws {
        let bus = try TestBus(denying: ["org.bluez"])
        let fake = try await FakeBlueZ.start(on: bus)
        let result = try await Self.doctor(on: bus)
        Self.expect("bluetoothd", "ok", in: result.standardOutput)
        Self.expect("bus policy", "FAIL", in: result.standardOutput)
        #expect(result.standardOutput.contains("org.freedesktop.DBus.Error.AccessDenied"))
        #expect(result.standardOutput.contains("`sudo usermod -aG bluetooth $USER`"))
        Self.expect("BlueZ version", "skipped", in: result.standardOutput)
        await fake.connection.close()
    }

    @Test(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
    func noAdapterFailsTheAdapterCheck() async throws {
        let bus = try TestBus()
        let fake = try await FakeBlueZ.start(on: bus)
        let result = try await Self.doctor(on: bus)
        Self.expect("bus policy", "ok", in: result.standardOutput)
        // The fake bluetoothd is this test process, which is not asked for a version.
        #expect(Self.line("BlueZ version", in: result.standardOutput)?.contains("not bluetoothd: not asked") == true)
        Self.expect("adapter", "FAIL", in: result.standardOutput)
        #expect(result.standardOutput.contains("fix: `bluetoothctl list` shows the adapters"))
        Self.expect("powered", "skipped", in: result.standardOutput)
        await fake.connection.close()
    }

    /// An adapter that is off: `powered` fails naming the command for this adapter; rfkill
    /// and LE still run (they may say why); the discovery is skipped.
    @Test(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
    func anAdapterPoweredOffFailsPoweredAndSkipsTheDiscovery() async throws {
        let bus = try TestBus()
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter("hci0", powered: true)
        try fake.addAdapter("hci1", powered: false, properties: [
            DBusProperty("Roles", value: .stringArray(["central", "peripheral"])),
            DBusProperty("Modalias", value: .string("usb:v1D6Bp0246d0542")),
        ])
        let result = try await Self.doctor(on: bus, ["--adapter", "hci1"])
        let output = result.standardOutput
        #expect(Self.line("BlueZ version", in: output)?.hasSuffix("5.66 (hci1's Modalias)") == true, "\(output)")
        Self.expect("adapter", "ok", in: output)
        Self.expect("powered", "FAIL", in: output)
        #expect(output.contains("fix: power it on: `bluetoothctl power on` (the default adapter) or `btmgmt --index hci1 power on`"))
        Self.expect("LE", "ok", in: output)
        #expect(Self.line("rfkill", in: output) != nil)
        Self.expect("discovery", "skipped", in: output)
        #expect(Self.line("discovery", in: output)?.hasSuffix("needs powered") == true)
        await fake.connection.close()
    }

    /// Runs `readerctl doctor` with the bus as its system bus; it must exit 10.
    static func doctor(on bus: TestBus, _ arguments: [String] = []) async throws -> ReaderctlProcess.Result {
        let result = try await ReaderctlProcess.runInBackground(
            ["doctor"] + arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(result.status == 10, "\(result.standardOutput)\(result.standardError)")
        return result
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
