import BLETransport
import BlueZTestSupport
import CardReaderKitTesting
import EmulatedPeripheral
import Locking
import ReaderProtocol
import Testing

/// Stopping the emulated reader as a peripheral (`readerctl emulate`, Ctrl-C), against a
/// fake bluetoothd on a private dbus-daemon that records what is registered and undone.
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct EmulatedPeripheralStopTests {
    /// Ctrl-C cancels the task that stops the reader. The stop still unregisters its GATT
    /// table and advertisements and gives the adapter its name back; before it removes the
    /// table it registers and removes a one-service table of its own, whose Service Changed
    /// makes bluetoothd forget hosts whose bond went (Docs/bluetooth-notes.md).
    @Test func aStopAskedFromACancelledTaskStillUndoesEverything() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        let events = Locked<[String]>([])
        func recording(_ member: String) -> DBusMethod {
            DBusMethod(member, in: member.hasPrefix("Register") ? "oa{sv}" : "o") { call in
                let path = call.arguments.first?.objectPathValue?.rawValue ?? "?"
                events.withLock { $0.append("\(member) \(path)") }
                return []
            }
        }
        try fake.addAdapter(
            "hci0", powered: true, properties: [DBusProperty("Alias", value: .string("till-3"), access: .readWrite)],
            interfaces: [
                DBusInterface(
                    "org.bluez.GattManager1", methods: [recording("RegisterApplication"), recording("UnregisterApplication")]),
                DBusInterface(
                    "org.bluez.LEAdvertisingManager1",
                    methods: [recording("RegisterAdvertisement"), recording("UnregisterAdvertisement")]),
            ])
        // Firmware 2.4.1 needs no pairing, so the reader registers no agent.
        var configuration = EmulatedReaderConfiguration()
        configuration.info.firmwareVersion = "2.4.1"
        let peripheral = try await EmulatedReaderPeripheral.start(
            reader: EmulatedReader(card: .visaTest, configuration: configuration), adapter: "hci0",
            localName: "VPOS3356-0001", busAddress: bus.address)
        let alias = { fake.connection.propertyValue("Alias", interface: "org.bluez.Adapter1", path: "/org/bluez/hci0") }
        #expect(alias() == .string("VPOS3356-0001"))
        events.withLock { $0.removeAll() }

        let stopping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await peripheral.stop()
        }
        await stopping.value

        #expect(
            events.withLock { $0 } == [
                "UnregisterAdvertisement /cardreaderkit/reader_advertisement/adv0",
                "UnregisterAdvertisement /cardreaderkit/reader_advertisement/adv1",
                "RegisterApplication /cardreaderkit/reader_flush",
                "UnregisterApplication /cardreaderkit/reader_flush",
                "UnregisterApplication /cardreaderkit/reader",
            ])
        #expect(alias() == .string("till-3"))
        await fake.connection.close()
    }
}
