import BLETransport
import Testing

/// Connecting, binding, notifications, chunked writes and link loss, against a fake
/// bluetoothd on a private dbus-daemon.
@Suite(.needsDBus) struct GattConnectionTests {
    func connect(abortedConnects: Int = 0) async throws -> (TestBus, FakeBlueZ, FakeReader, BluetoothSession, GattConnection) {
        let bus = try TestBus()
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter("hci1", powered: true)
        let reader = FakeReader()
        try reader.export(on: fake, abortedConnects: abortedConnects)
        let session = try await BluetoothSession.open(busAddress: bus.address)
        let adapter = try await session.adapter(named: "hci1")
        let connection = try await adapter.device(at: FakeReader.device).connect(timeout: .seconds(5))
        return (bus, fake, reader, session, connection)
    }

    @Test func abortedConnectsAreRetriedThenNotificationsAndChunkedWritesFlow() async throws {
        let (bus, fake, reader, session, connection) = try await connect(abortedConnects: 1)
        defer { withExtendedLifetime(bus) {} }
        #expect(fake.recorded("Connect").count == 2)
        #expect(await connection.info?.servicesResolved == true)

        let transmit = try await connection.characteristic(FakeReader.transmitUUID, inService: FakeReader.dataService)
        let receive = try await connection.characteristic(FakeReader.receiveUUID, inService: FakeReader.dataService)
        #expect(await connection.maximumWriteLength(for: receive) == 20)
        let notifications = try await connection.notifications(of: transmit)
        #expect(fake.recorded("StartNotify").count == 1)

        try fake.connection.setProperty("Value", interface: "org.bluez.GattCharacteristic1", path: FakeReader.transmit, to: .bytes([1, 2, 3]))
        var iterator = notifications.makeAsyncIterator()
        #expect(await iterator.next() == [1, 2, 3])

        // The first WriteValue answers InProgress: back-pressure, retried.
        let bytes = (0..<45).map { UInt8($0) }
        try await connection.write(bytes, to: receive)
        let writes = reader.writes.withLock { $0 }
        #expect(writes.map(\.0.count) == [20, 20, 5])
        #expect(writes.flatMap(\.0) == bytes)
        #expect(writes.allSatisfy { $0.1 == "request" })

        let missing = await #expect(throws: BluetoothError.self) {
            try await connection.characteristic("2a19", inService: "180f")
        }
        #expect(missing?.code.rawValue == "missing-attribute")

        // The peripheral goes away: Connected false ends notifications and later writes.
        try fake.connection.setProperty("Connected", interface: "org.bluez.Device1", path: FakeReader.device, to: .bool(false))
        #expect(await iterator.next() == nil)
        #expect(await connection.linkLoss?.code.rawValue == "remote-disconnected")
        await #expect(throws: BluetoothError.linkLost(.remoteDisconnected("VPOS3356-1A2B (00:AA:01:00:00:23)"))) {
            try await connection.write([1], to: receive)
        }
        await connection.disconnect()
        await session.close()
        await fake.connection.close()
    }

    @Test func bluetoothdVanishingEndsAWriteInFlightAtOnce() async throws {
        let (bus, fake, reader, session, connection) = try await connect()
        defer { withExtendedLifetime(bus) {} }
        let receive = try await connection.characteristic(FakeReader.receiveUUID, inService: FakeReader.dataService)
        try await connection.write([0], to: receive)  // takes the InProgress answer
        let stuck = Task { () -> BluetoothError? in
            do throws(BluetoothError) {
                try await connection.write([0xFF], to: receive)
                return nil
            } catch {
                return error
            }
        }
        try await reader.stuckWrite.wait()
        await fake.connection.close()  // org.bluez loses its owner
        let error = try await within(5, "the stuck write ending") { await stuck.value }
        #expect(error?.code.rawValue == "bluetoothd-restarted")
        #expect(await connection.linkLoss?.code.rawValue == "bluetoothd-restarted")
        await connection.disconnect()
        await session.close()
    }

    @Test func aDeviceThatIsAlreadyConnectedIsUsedWithoutConnect() async throws {
        let bus = try TestBus()
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter("hci1", powered: true)
        try FakeReader().export(on: fake, abortedConnects: 0)
        try fake.connection.setProperties(
            ["Connected": .bool(true), "ServicesResolved": .bool(true)], interface: "org.bluez.Device1", path: FakeReader.device)
        let session = try await BluetoothSession.open(busAddress: bus.address)
        let connection = try await BluetoothDevice(session: session, path: FakeReader.device).connect(timeout: .seconds(5))
        #expect(fake.recorded("Connect").isEmpty)
        await connection.disconnect()
        #expect(fake.recorded("Disconnect").count == 1)
        await session.close()
        await fake.connection.close()
    }

    @Test func aConnectThatNeverResolvesServicesTimesOut() async throws {
        let bus = try TestBus()
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter("hci1", powered: true)
        try fake.connection.export(FakeReader.device, interfaces: [
            DBusInterface("org.bluez.Device1", methods: [
                DBusMethod("Connect") { _ in [] },
                DBusMethod("Disconnect") { call in
                    fake.record(call)
                    return []
                },
            ], properties: [
                DBusProperty("Address", value: .string("00:AA:01:00:00:23")),
                DBusProperty("Connected", value: .bool(false)),
            ])
        ])
        let session = try await BluetoothSession.open(busAddress: bus.address)
        let start = ContinuousClock.now
        let error = await #expect(throws: BluetoothError.self) {
            try await BluetoothDevice(session: session, path: FakeReader.device).connect(timeout: .milliseconds(300))
        }
        #expect(error?.code.rawValue == "timeout")
        #expect(ContinuousClock.now - start < .seconds(10))  // the 300 ms deadline, not a hang
        #expect(fake.recorded("Disconnect").count == 1)  // the pending connection is cancelled
        await session.close()
        await fake.connection.close()
    }
}
