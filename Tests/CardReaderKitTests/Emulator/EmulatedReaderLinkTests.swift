import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Testing

/// The in-process link's contract (ReaderLink): MTU-bounded writes, one central, closing.
@Suite(.timeLimit(.minutes(1))) struct EmulatedReaderLinkTests {
    @Test(arguments: [23, 247]) func writesLongerThanMTUMinus3AreRefused(mtu: Int) async throws {
        let host = try await EmulatorHost(mtu: mtu)
        #expect(await host.link.maximumWriteLength == mtu - 3)
        let error = await #expect(throws: LinkError.self) {
            try await host.link.write([UInt8](repeating: 0x55, count: mtu - 2))
        }
        #expect(error?.code.rawValue == "write-too-long")
        try await host.link.write([UInt8](repeating: 0x55, count: mtu - 3))
    }

    @Test func aSecondCentralIsRefused() async throws {
        let host = try await EmulatorHost()
        let error = await #expect(throws: LinkError.self) {
            _ = try await EmulatedReaderConnector(reader: host.reader).connect()
        }
        #expect(error?.code.rawValue == "connection-refused")
    }

    @Test func mtuOutsideTheBLERangeIsRefused() async throws {
        let reader = EmulatedReader(clock: ManualClock())
        for mtu in [22, 248] {
            let error = await #expect(throws: LinkError.self) {
                _ = try await EmulatedReaderConnector(reader: reader, mtu: mtu).connect()
            }
            #expect(error?.code.rawValue == "invalid-mtu", "MTU \(mtu)")
        }
    }

    @Test func closingFinishesInboundAndRejectsWrites() async throws {
        var host = try await EmulatorHost()
        await host.link.close()
        await host.link.close()  // idempotent
        #expect(await host.nextFrame() == nil)
        #expect(host.dropReason == nil)
        let error = await #expect(throws: LinkError.self) { try await host.send(.getInfo) }
        #expect(error?.code.rawValue == "not-connected")
        // The reader takes a new central once the first has gone.
        var second = try await EmulatorHost(connectingTo: host.reader, clock: host.clock)
        #expect(try await second.exchange(.getInfo).status == .success)
    }

    @Test func theConnectorDescribesTheEmulatedModel() {
        let connector = EmulatedReaderConnector(reader: EmulatedReader(clock: ManualClock()))
        #expect(connector.readerDescription == "emulated VPOS3356")
        #expect(connector.mtu == 23)
    }

    @Test func waitingCommandsAreAbandonedWhenTheHostDisconnects() async throws {
        let host = try await EmulatorHost(scenario: ["no-swipe"])
        try await host.send(.readMagneticStripe(timeoutSeconds: 0))
        await host.link.close()
        var second = try await EmulatorHost(connectingTo: host.reader, clock: host.clock)
        // Not busy: nothing waits any more.
        #expect(try await second.exchange(.iccStatus).status == .success)
    }
}
