import BLETransport
import BlueZTestSupport
import CardReaderCore
import CardReaderKit
import CardReaderKitTesting
import ManualClockSteps
import Testing

/// A pairing given up, against a fake bluetoothd on a private dbus-daemon whose `Pair`
/// runs until the test lets it end (the fake answers one call per object at a time, so a
/// `CancelPairing` is answered after it).
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct BlueZPairingCancelTests {
    static let device: DBusObjectPath = "/org/bluez/hci1/dev_00_AA_01_00_00_01"

    /// Ctrl-C at `readerctl pair` (its task cancelled while `Pair` runs): the pairing is
    /// cancelled in bluetoothd, the reader disconnected, the agent unregistered, and the
    /// adapter made not bondable again as it was. Undone from the cancelled task itself,
    /// none of these calls would leave.
    @Test func aPairingGivenUpIsUndoneInBluetoothd() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        let pairing = Gate(), pairingEnds = Gate()
        try fake.connection.export(BlueZNames.managerPath, interfaces: [
            DBusInterface(
                "org.bluez.AgentManager1",
                methods: [fake.recordingMethod("RegisterAgent", in: "os"), fake.recordingMethod("UnregisterAgent", in: "o")])
        ])
        let readerDevice = DBusInterface(
            "org.bluez.Device1",
            methods: [
                DBusMethod("Pair") { call in
                    fake.record(call)
                    pairing.open()
                    try await pairingEnds.wait(within: Double(WaitBound.inProcess.components.seconds))
                    throw DBusError.remote(name: "org.bluez.Error.AuthenticationCanceled", message: "Authentication Canceled")
                },
                fake.recordingMethod("CancelPairing"),
                fake.recordingMethod("Disconnect"),
            ],
            properties: [
                DBusProperty("Address", value: .string("00:AA:01:00:00:01")),
                DBusProperty("Name", value: .string("VPOS3356-0001")),
                DBusProperty("Adapter", value: .objectPath("/org/bluez/hci1")),
                DBusProperty("RSSI", value: .int16(-50)),
            ])
        try fake.addAdapter(
            "hci1", powered: true, properties: [DBusProperty("Pairable", value: .bool(false), access: .readWrite)],
            methods: [
                fake.recordingMethod("SetDiscoveryFilter", in: "a{sv}"),
                DBusMethod("StartDiscovery") { call in
                    fake.record(call)
                    try fake.connection.export(Self.device, interfaces: [readerDevice])
                    return []
                },
                fake.recordingMethod("StopDiscovery"),
            ])
        let pairable = { fake.connection.propertyValue("Pairable", interface: "org.bluez.Adapter1", path: "/org/bluez/hci1") }
        let connector = BlueZReaderConnector(
            reader: "VPOS3356", adapter: "hci1", busAddress: bus.address, bondStore: nil, clock: ManualClock())

        let pairingTask = Task { try await connector.pair(PairingRequest(timeout: .seconds(60))) }
        try await pairing.wait(within: Double(WaitBound.inProcess.components.seconds))
        #expect(pairable() == .bool(true))
        pairingTask.cancel()
        pairingEnds.open()
        await #expect(throws: PairingError.self) { try await pairingTask.value }

        #expect(fake.recorded("CancelPairing").count == 1)
        #expect(fake.recorded("Disconnect").count == 1)
        #expect(fake.recorded("UnregisterAgent").count == 1)
        #expect(pairable() == .bool(false))
        await fake.connection.close()
    }
}
