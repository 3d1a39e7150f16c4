import CardReaderKit
import CardReaderKitTesting
import Logging
import Testing

/// The core's fleet API with no BlueZ under it: a fleet of emulated readers, one of which
/// cannot be connected to (its link asks for an ATT MTU of 10, below the 23 BLE allows).
@Suite struct ReaderFleetTests {
    private struct EmulatedFleet: ReaderFleet {
        struct Found: Sendable, CustomStringConvertible {
            var name: String
            var reader: EmulatedReader
            var mtu = 23
            var description: String { name }
        }

        var readers: [Found]
        var logger: Logger { Logger(label: "ReaderFleetTests") }

        func scan(for duration: Duration) async throws(LinkError) -> [Found] { readers }

        func find(_ names: [String], timeout: Duration) async throws(LinkError) -> [String: Found] {
            var found: [String: Found] = [:]
            for name in names { found[name] = readers.first { $0.name.hasPrefix(name) } }
            return found
        }

        func connector(for reader: Found, timeout: Duration) -> EmulatedReaderConnector {
            EmulatedReaderConnector(reader: reader.reader, mtu: reader.mtu)
        }

        func close() async {}
    }

    private let fleet = EmulatedFleet(readers: [
        .init(name: "VPOS3356-E001", reader: EmulatedReader(card: .visaTest)),
        .init(name: "VPOS3356-E002", reader: EmulatedReader(card: .mastercardTest), mtu: 10),
        .init(name: "VPOS3356-E003", reader: EmulatedReader(card: .visaTest)),
    ])

    @Test func connectAllConnectsEachReaderOnItsOwnInTheReadersOrder() async throws {
        let outcomes = await fleet.connectAll(try await fleet.scan(for: .seconds(1)), timeout: .seconds(5))
        #expect(outcomes.map(\.device.name) == ["VPOS3356-E001", "VPOS3356-E002", "VPOS3356-E003"])
        // The unreachable reader fails alone; the other two answer GET INFO.
        guard case .failure(let error) = outcomes[1].result else {
            Issue.record("the reader with MTU 10 connected")
            return
        }
        #expect(error.code == .connectionFailed)
        for outcome in [outcomes[0], outcomes[2]] {
            let reader = try outcome.result.get()
            #expect(try await reader.info().model == "VPOS3356")
            await reader.disconnect()
        }
    }
}
