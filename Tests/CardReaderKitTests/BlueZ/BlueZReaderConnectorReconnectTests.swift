import BLETransport
import BlueZTestSupport
import CardReaderKit
import CardReaderKitTesting
import Testing

/// A connector's later connects, against a fake bluetoothd on a private dbus-daemon: a
/// lane's reconnection goes straight to the device BlueZ still knows (`Device1.Connect`),
/// without the discovery the first connect needed.
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct BlueZReaderConnectorReconnectTests {
    @Test func aSecondConnectGoesToTheKnownDeviceWithoutADiscovery() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter(
            "hci1", powered: true,
            methods: [
                fake.recordingMethod("SetDiscoveryFilter", in: "a{sv}"), fake.recordingMethod("StartDiscovery"),
                fake.recordingMethod("StopDiscovery"),
            ])
        let reader = FakeReader()
        try reader.export(on: fake, abortedConnects: 0, firmwareRevision: .value(Array("2.4.1".utf8)), rssi: -50)
        let connector = BlueZReaderConnector(
            reader: "VPOS3356", adapter: "hci1", busAddress: bus.address, valueTransport: .dbusMessages, bondStore: nil,
            clock: ManualClock())

        let first = try await connector.connect()
        #expect(fake.recorded("StartDiscovery").count == 1, "the first connect finds the reader by its name")
        await first.close()
        let second = try await connector.connect()
        #expect(fake.recorded("StartDiscovery").count == 1, "the reconnection discovered again")
        #expect(fake.recorded("Connect").count == 2)
        await second.close()
        await fake.connection.close()
    }
}
