import BLETransport
import BlueZTestSupport
import CardReaderKit
import CardReaderKitTesting
import EmulatedPeripheral
import ManualClockSteps
import Testing

/// The emulated reader as a peripheral meets a central as a real reader does, against a
/// fake bluetoothd on a private dbus-daemon: its link begins when the central connects,
/// not at the central's first write, so a central that connects and writes nothing is
/// dropped by the reader's idle rule, and disconnected through BlueZ.
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct EmulatedPeripheralConnectionTests {
    static let central: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_00_01"

    @Test func theIdleRuleCountsFromTheConnectionAndDisconnectsTheCentral() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter(
            "hci0", powered: true, properties: [DBusProperty("Alias", value: .string("till-3"), access: .readWrite)],
            interfaces: [
                DBusInterface(
                    "org.bluez.GattManager1",
                    methods: [fake.recordingMethod("RegisterApplication", in: "oa{sv}"), fake.recordingMethod("UnregisterApplication", in: "o")]),
                DBusInterface(
                    "org.bluez.LEAdvertisingManager1",
                    methods: [
                        fake.recordingMethod("RegisterAdvertisement", in: "oa{sv}"), fake.recordingMethod("UnregisterAdvertisement", in: "o"),
                    ]),
            ])
        let disconnected = Gate()
        try fake.connection.export(Self.central, interfaces: [
            DBusInterface("org.bluez.Device1", methods: [
                DBusMethod("Disconnect") { call in
                    fake.record(call)
                    disconnected.open()
                    try fake.connection.setProperties(["Connected": .bool(false)], interface: "org.bluez.Device1", path: Self.central)
                    return []
                }
            ], properties: [
                DBusProperty("Address", value: .string("00:AA:01:00:00:01")),
                DBusProperty("Adapter", value: .objectPath("/org/bluez/hci0")),
                DBusProperty("Connected", value: .bool(false)),
            ])
        ])
        // Firmware 2.4.1 needs no pairing, so the reader registers no agent.
        var configuration = EmulatedReaderConfiguration()
        configuration.info.firmwareVersion = "2.4.1"
        let clock = ManualClock()
        let reader = EmulatedReader(
            card: .visaTest, scenario: try EmulatorScenario(parsing: ["idle-timeout=20"]), configuration: configuration,
            clock: clock)
        let peripheral = try await EmulatedReaderPeripheral.start(
            reader: reader, adapter: "hci0", localName: "VPOS3356-0001", busAddress: bus.address)

        try fake.connection.setProperties(["Connected": .bool(true)], interface: "org.bluez.Device1", path: Self.central)
        // The reader's idle timer runs from the connection: 20 s, with no write at all.
        try await clock.waitForSleepers(dueNoSoonerThan: .seconds(20), dueWithin: .seconds(20))
        #expect(await reader.sentOnLatestConnection.connection == 1)
        #expect(await peripheral.connectedCentral == Self.central)
        clock.advance(by: .seconds(20))
        try await disconnected.wait(within: Double(WaitBound.inProcess.components.seconds))
        #expect(fake.recorded("Disconnect") == ["org.bluez.Device1.Disconnect \(Self.central.rawValue)"])
        #expect(await reader.lastDropCause?.code == .idleTimeout)
        await peripheral.stop()
        await fake.connection.close()
    }
}
