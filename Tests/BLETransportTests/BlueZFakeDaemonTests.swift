import BLETransport
import BlueZTestSupport
import CardReaderKitTesting
import Locking
import ManualClockSteps
import Testing

/// The BlueZ layer against a fake bluetoothd on a private dbus-daemon.
@Suite(.needsDBus) struct BlueZFakeDaemonTests {
    @Test func withoutBluetoothdTheErrorSaysSo() async throws {
        try await withBus { _, client, _ in
            let session = BluetoothSession(connection: client)
            let error = await #expect(throws: BluetoothError.self) { try await session.adapter() }
            #expect(error?.code.rawValue == "bluetoothd-not-running")
        }
    }

    @Test func adaptersAreChosenByNameOrAsTheFirstPoweredOne() async throws {
        let bus = try await TestBus.start()
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter("hci0", powered: false)
        try fake.addAdapter("hci1", powered: true)
        let session = try await BluetoothSession.open(busAddress: bus.address, clock: ManualClock())
        #expect(try await session.adapters().map(\.name) == ["hci0", "hci1"])
        #expect(try await session.adapter().name == "hci1")
        #expect(try await session.adapter(named: "hci1").path == "/org/bluez/hci1")
        await #expect(throws: BluetoothError.adapterPoweredOff("hci0")) { try await session.adapter(named: "hci0") }
        await #expect(throws: BluetoothError.noSuchAdapter("hci7", available: ["hci0", "hci1"])) {
            try await session.adapter(named: "hci7")
        }
        await session.close()
        await fake.connection.close()
    }

    @Test func aGattApplicationAndRotatingAdvertisementsRegister() async throws {
        let bus = try await TestBus.start()
        let fake = try await FakeBlueZ.start(on: bus)
        let exported = Locked<[DBusObjectPath: [String: [String: DBusValue]]]>([:])
        let server = fake.connection
        try fake.addAdapter("hci0", powered: true, interfaces: [
            DBusInterface("org.bluez.GattManager1", methods: [
                DBusMethod("RegisterApplication", in: "oa{sv}") { call in
                    fake.record(call)
                    // bluetoothd reads the application back with GetManagedObjects.
                    guard let sender = call.sender, let root = call.arguments.first?.objectPathValue else { return [] }
                    let objects = try await server.managedObjects(destination: sender, path: root)
                    exported.withLock { $0 = objects }
                    return []
                },
                fake.recordingMethod("UnregisterApplication", in: "o"),
            ]),
            DBusInterface("org.bluez.LEAdvertisingManager1", methods: [
                fake.recordingMethod("RegisterAdvertisement", in: "oa{sv}"),
                fake.recordingMethod("UnregisterAdvertisement", in: "o"),
            ]),
        ])
        let session = try await BluetoothSession.open(busAddress: bus.address, clock: ManualClock())
        let adapter = try await session.adapter(named: "hci0")
        let written = Locked<[[UInt8]]>([])
        let application = try await GattApplication.register(
            [
                GattServiceDefinition(uuid: "49535343-fe7d-4ae5-8fa9-9fafd205e455", characteristics: [
                    GattCharacteristicDefinition(uuid: "49535343-1e4d-4bd9-ba61-23c647249616", flags: ["notify"]),
                    GattCharacteristicDefinition(
                        uuid: "49535343-8841-43f4-a8d4-ecbe34729bb3", flags: ["write", "write-without-response"],
                        onWrite: { value, _ in written.withLock { $0.append(value) } }),
                ])
            ], on: adapter, at: "/test/app")
        let objects = exported.withLock { $0 }
        let characteristic = try #require(objects["/test/app/service0/char0"]?["org.bluez.GattCharacteristic1"])
        // The Service property must be an object path, or BlueZ finds no valid service.
        #expect(characteristic["Service"] == .objectPath("/test/app/service0"))
        #expect(characteristic["Flags"] == .stringArray(["notify"]))
        #expect(objects["/test/app/service0"]?["org.bluez.GattService1"]?["Primary"] == .bool(true))

        // A write from "bluetoothd" reaches the handler; a notification is a PropertiesChanged.
        let changes = try await server.signals(matching: .propertiesChanged(path: "/test/app/service0/char0"))
        _ = try await server.call(
            destination: session.connection.uniqueName, path: "/test/app/service0/char1",
            interface: "org.bluez.GattCharacteristic1", member: "WriteValue",
            body: [.bytes([2, 0xC0, 1]), .stringVariantDictionary(["mtu": .uint16(247)])])
        #expect(written.withLock { $0 } == [[2, 0xC0, 1]])
        try application.notify("49535343-1e4d-4bd9-ba61-23c647249616", value: [1, 2, 3])
        let change = try #require(try await next(changes).flatMap(DBusPropertiesChanged.init))
        #expect(change.changed["Value"] == .bytes([1, 2, 3]))

        let advertiser = try await LEAdvertiser.register(LEAdvertisement(localName: "VPOS3356-0001"), on: adapter, at: "/test/adv")
        #expect(advertiser.paths == ["/test/adv/adv0", "/test/adv/adv1"])
        let duration = try await server.getProperty(
            "Duration", interface: "org.bluez.LEAdvertisement1", destination: session.connection.uniqueName,
            path: "/test/adv/adv1")
        #expect(duration == .uint16(1))
        await advertiser.unregister()
        await application.unregister()
        #expect(fake.recorded("UnregisterAdvertisement").count == 2)
        #expect(fake.recorded("UnregisterApplication").count == 1)
        await session.close()
        await server.close()
    }

    /// An advertiser whose caller gives up while bluetoothd registers the second
    /// advertisement is not one advertisement short: it throws, and both advertisements,
    /// which bluetoothd may have taken, are unregistered.
    @Test func anAdvertiserGivenUpWhileRegisteringLeavesNoAdvertisement() async throws {
        let bus = try await TestBus.start()
        let fake = try await FakeBlueZ.start(on: bus)
        let registering = Gate(), registrationEnds = Gate()
        let registrations = Locked(0)
        try fake.addAdapter("hci0", powered: true, interfaces: [
            DBusInterface("org.bluez.LEAdvertisingManager1", methods: [
                DBusMethod("RegisterAdvertisement", in: "oa{sv}") { call in
                    fake.record(call)
                    guard registrations.withLock({ $0 += 1; return $0 }) == 2 else { return [] }
                    registering.open()
                    try await registrationEnds.wait(within: Double(WaitBound.inProcess.components.seconds))
                    return []
                },
                fake.recordingMethod("UnregisterAdvertisement", in: "o"),
            ])
        ])
        let session = try await BluetoothSession.open(busAddress: bus.address, clock: ManualClock())
        let adapter = try await session.adapter(named: "hci0")
        let advertising = Task { try await LEAdvertiser.register(LEAdvertisement(localName: "VPOS3356-0001"), on: adapter, at: "/test/adv") }
        try await registering.wait(within: Double(WaitBound.inProcess.components.seconds))
        advertising.cancel()
        registrationEnds.open()
        await #expect(throws: BluetoothError.cancelled) { try await advertising.value }
        #expect(fake.recorded("UnregisterAdvertisement").count == 2)
        await session.close()
        await fake.connection.close()
    }
}
