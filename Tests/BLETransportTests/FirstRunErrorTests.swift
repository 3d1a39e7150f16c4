import BLETransport
import BlueZTestSupport
import CardReaderKitTesting
import ManualClockSteps
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The errors a first run meets, against a private dbus-daemon and a fake bluetoothd: each
/// keeps its code and says what to do (`fix`).
@Suite(.needsDBus) struct FirstRunErrorTests {
    @Test func aBusThatIsNotThereAsksWhetherDBusRuns() async {
        let error = await #expect(throws: BluetoothError.self) {
            try await BluetoothSession.open(busAddress: "unix:path=/nonexistent/cardreaderkit-test-bus")
        }
        #expect(error?.code == .busUnreachable)
        #expect(error?.description.hasPrefix("cannot reach the D-Bus system bus (org.freedesktop.DBus.Error.") == true)
        #expect(error?.fix?.hasPrefix("is dbus running? is bluetoothd?") == true)
    }

    @Test func withoutBluetoothdTheFixStartsIt() async throws {
        try await withBus { _, client, _ in
            let session = BluetoothSession(connection: client)
            let calls: [@Sendable () async throws -> Void] = [
                { _ = try await session.bluetoothd() }, { _ = try await session.adapter() },
            ]
            for call in calls {
                let error = await #expect(throws: BluetoothError.self) { try await call() }
                #expect(error?.code == .bluetoothdNotRunning)
                #expect(error?.fix?.contains("sudo systemctl start bluetooth") == true)
            }
        }
    }

    @Test func bluetoothdIsTheProcessOwningOrgBluez() async throws {
        try await withFakeBlueZ { session, fake in
            let daemon = try await session.bluetoothd()
            #expect(daemon.uniqueName == fake.connection.uniqueName)
            #expect(daemon.processID == UInt32(getpid()))
        }
    }

    @Test func noAdapterAtAllSaysWhereToLook() async throws {
        try await withFakeBlueZ { session, _ in
            let error = await #expect(throws: BluetoothError.noSuchAdapter(nil, available: [])) { try await session.adapter() }
            #expect(error?.fix?.contains("`bluetoothctl list`") == true)
            #expect(error?.fix?.contains("`rfkill list`") == true)
        }
    }

    @Test func anAdapterPoweredOffNamesTheCommandsThatPowerIt() async throws {
        try await withFakeBlueZ({ try $0.addAdapter("hci0", powered: false) }) { session, _ in
            let error = await #expect(throws: BluetoothError.adapterPoweredOff("hci0")) { try await session.adapter() }
            #expect(error?.fix?.contains("`bluetoothctl power on`") == true)
            #expect(error?.fix?.contains("`btmgmt --index hci0 power on`") == true)
            #expect(error?.fix?.contains("`rfkill unblock bluetooth`") == true)
            // The code's own fix, as a link error carries it, names no adapter.
            #expect(error?.code.fix?.contains("--index hciN") == true)
        }
    }

    /// A system bus whose policy does not grant org.bluez to this user answers AccessDenied.
    @Test func aBusPolicyThatDeniesBlueZNamesThePolicyAndTheGroup() async throws {
        try await withFakeBlueZ(denying: ["org.bluez"], { try $0.addAdapter("hci0", powered: true) }) { session, _ in
            _ = try await session.bluetoothd()  // asking the bus is allowed
            let error = await #expect(throws: BluetoothError.self) { try await session.adapters() }
            #expect(error?.code == .accessDenied)
            #expect(error?.code.rawValue == "org.freedesktop.DBus.Error.AccessDenied")
            #expect(error?.fix?.contains("`bluetooth` group") == true)
            #expect(error?.fix?.contains("/etc/dbus-1/system.d") == true)
        }
    }

    /// The fake announces its devices as it answers StartDiscovery, so they are in the
    /// discovery's stream before its 300 ms begin; the clock then passes them at once.
    @Test func aReaderNotFoundListsWhatAdvertisedInstead() async throws {
        let clock = ManualClock()
        try await withFakeBlueZ(clock: clock, {
            try $0.addAdapter("hci1", powered: true, methods: Self.discovery(on: $0, advertising: ["Phone", "Watch"]))
        }) { session, _ in
            let adapter = try await session.adapter(named: "hci1")
            let finding = Task { try await adapter.find(DiscoveryFilter(namePrefix: "VPOS"), timeout: .milliseconds(300)) }
            try await clock.advance(pastSleepOf: .milliseconds(300))
            let error = await #expect(throws: BluetoothError.self) { try await finding.value }
            guard case .deviceNotFound(let what, _, let seen)? = error else {
                Issue.record("expected deviceNotFound, got \(String(describing: error))")
                return
            }
            #expect(what == "name VPOS* on hci1")
            #expect(seen.count == 2)
            #expect(error?.description.contains(
                "found within 0.3 s; seen instead: Phone (00:11:22:33:44:00) RSSI -60, Watch (00:11:22:33:44:01) RSSI -61") == true)
            #expect(error?.fix?.contains("`bluetoothctl scan le`") == true)
        }
    }

    @Test func aDiscoveryThatHearsNothingSaysSo() async throws {
        let clock = ManualClock()
        try await withFakeBlueZ(clock: clock, {
            try $0.addAdapter("hci1", powered: true, methods: Self.discovery(on: $0, advertising: []))
        }) { session, _ in
            let adapter = try await session.adapter(named: "hci1")
            let finding = Task { try await adapter.find(DiscoveryFilter(address: "AA:BB:CC:DD:EE:FF"), timeout: .milliseconds(200)) }
            try await clock.advance(pastSleepOf: .milliseconds(200))
            let error = await #expect(throws: BluetoothError.self) { try await finding.value }
            #expect(error?.description.hasSuffix("; no device advertised at all") == true)
        }
    }

    /// A find given up (its task cancelled, as a connect is on Ctrl-C) still stops its
    /// discovery: a StopDiscovery sent from the cancelled task would end before it left,
    /// and bluetoothd would go on scanning for this client.
    @Test func aFindThatIsCancelledStillStopsItsDiscovery() async throws {
        let started = Gate()
        try await withFakeBlueZ({ fake in
            try fake.addAdapter("hci1", powered: true, methods: [
                DBusMethod("SetDiscoveryFilter", in: "a{sv}") { _ in [] },
                DBusMethod("StartDiscovery") { call in
                    fake.record(call)
                    started.open()
                    return []
                },
                DBusMethod("StopDiscovery") { call in
                    fake.record(call)
                    return []
                },
            ])
        }) { session, fake in
            let adapter = try await session.adapter(named: "hci1")
            let finding = Task { try await adapter.find(DiscoveryFilter(namePrefix: "VPOS"), timeout: .seconds(30)) }
            try await started.wait(within: Double(WaitBound.inProcess.components.seconds))
            finding.cancel()
            _ = try? await finding.value
            #expect(fake.recorded("StartDiscovery").count == 1)
            #expect(fake.recorded("StopDiscovery").count == 1)
        }
    }

    @Test func rolesAndModaliasSayLEAndTheVersion() async throws {
        try await withFakeBlueZ({ fake in
            try fake.addAdapter("hci0", powered: true, properties: [
                DBusProperty("Roles", value: .stringArray(["central", "peripheral"])),
                DBusProperty("Modalias", value: .string("usb:v1D6Bp0246d0542")),
            ])
            try fake.addAdapter("hci1", powered: true, properties: [DBusProperty("Roles", value: .stringArray([]))])
            try fake.addAdapter("hci2", powered: true, properties: [DBusProperty("Modalias", value: .string("usb:v8087p0A2Bd0001"))])
        }) { session, _ in
            let adapters = try await session.adapters()
            #expect(adapters.map(\.supportsLECentral) == [true, false, nil])
            #expect(adapters.map(\.bluezVersionFromModalias) == ["5.66", nil, nil])
        }
    }

    /// `SetDiscoveryFilter`, `StartDiscovery` (which makes each name in `names` appear, with
    /// an RSSI, as a device on hci1) and `StopDiscovery`.
    static func discovery(on fake: FakeBlueZ, advertising names: [String]) -> [DBusMethod] {
        [
            DBusMethod("SetDiscoveryFilter", in: "a{sv}") { _ in [] },
            DBusMethod("StartDiscovery") { _ in
                for (index, name) in names.enumerated() {
                    let address = "00:11:22:33:44:0\(index)"
                    try fake.connection.export(
                        DBusObjectPath("/org/bluez/hci1/dev_" + address.split(separator: ":").joined(separator: "_")),
                        interfaces: [
                            DBusInterface("org.bluez.Device1", properties: [
                                DBusProperty("Address", value: .string(address)),
                                DBusProperty("Name", value: .string(name)),
                                DBusProperty("Adapter", value: .objectPath("/org/bluez/hci1")),
                                DBusProperty("RSSI", value: .int16(-60 - Int16(index))),
                            ])
                        ])
                }
                return []
            },
            DBusMethod("StopDiscovery") { _ in [] },
        ]
    }
}

/// The bounded list of devices a not-found error carries.
@Suite struct SeenDevicesTests {
    @Test func keepsTheFirstEightAndCountsTheRest() throws {
        var seen = SeenDevices()
        for index in 0..<12 {
            let address = "00:11:22:33:44:\(index < 10 ? "0" : "")\(index)"
            seen.note(try #require(BluetoothDeviceInfo(
                path: DBusObjectPath("/org/bluez/hci0/dev_\(index)"), properties: ["Address": .string(address)])))
        }
        // A later report of a device already listed updates it and counts nothing.
        seen.note(try #require(BluetoothDeviceInfo(
            path: "/org/bluez/hci0/dev_0", properties: ["Address": .string("00:11:22:33:44:00"), "Name": .string("Phone")])))
        #expect(seen.count == 12)
        #expect(seen.devices.count == SeenDevices.limit)
        #expect(seen.devices.first?.name == "Phone")
        #expect(seen.description.hasPrefix("Phone (00:11:22:33:44:00), 00:11:22:33:44:01"))
        #expect(seen.description.hasSuffix("00:11:22:33:44:07 and 4 more"))
        #expect(SeenDevices().description == "none")
    }

    /// Every code a first run meets has a fix; codes for a person's own choices do not.
    @Test func everyFirstRunCodeHasAFix() {
        let firstRun: [BluetoothError.Code] = [
            .dbusLibraryUnavailable, .busUnreachable, .bluetoothdNotRunning, .accessDenied, .noSuchAdapter,
            .adapterPoweredOff, .deviceNotFound, .missingAttribute, .bluetoothdRestarted, .remoteDisconnected,
        ]
        for code in firstRun { #expect(code.fix != nil, "\(code)") }
        #expect(BluetoothError.Code.cancelled.fix == nil)
        #expect(BluetoothLinkLoss(.adapterPoweredOff, "hci1 is off").fix == BluetoothError.Code.adapterPoweredOff.fix)
    }
}
