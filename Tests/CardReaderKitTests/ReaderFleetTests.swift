import CardReaderKit
import CardReaderKitTesting
import CoreMetrics
import Locking
import Logging
import MetricsTestKit
import Testing

/// The core's fleet API with no BlueZ under it: ``EmulatedReaderFleet``, whose members go
/// by their own names. Readers and emulators share a clock nobody advances: no deadline
/// passes while a test runs, however busy the machine.
@Suite(.timeLimit(.minutes(1))) struct ReaderFleetTests {
    private let clock = ManualClock()

    @Test func connectAllConnectsEachReaderOnItsOwnInTheReadersOrder() async throws {
        // Three readers; the second bonds no host, so this host cannot connect to it
        // (firmware 3.1.0 needs a bond, reader documentation §1.1).
        let fleet = EmulatedReaderFleet(readers: [
            EmulatedReader(card: .visaTest, configuration: EmulatedReaderConfiguration(name: "VPOS3356-E001"), clock: clock),
            EmulatedReader(
                card: .mastercardTest, configuration: EmulatedReaderConfiguration(bondedHosts: [], name: "VPOS3356-E002"),
                clock: clock),
            EmulatedReader(card: .visaTest, configuration: EmulatedReaderConfiguration(name: "VPOS3356-E003"), clock: clock),
        ])
        let outcomes = await fleet.connectAll(try await fleet.scan(for: .seconds(1)), timeout: .seconds(5), clock: clock)
        #expect(outcomes.map(\.device.name) == ["VPOS3356-E001", "VPOS3356-E002", "VPOS3356-E003"])
        // The reader without a bond fails alone, under its name; the other two answer GET INFO.
        guard case .failure(let error) = outcomes[1].result else {
            Issue.record("the reader without a bond connected")
            return
        }
        #expect(error.code == .connectionFailed)
        #expect(error.link?.code == .notPaired)
        #expect(error.description.contains("VPOS3356-E002"))
        for outcome in [outcomes[0], outcomes[2]] {
            let reader = try outcome.result.get()
            #expect(try await reader.info().model == "VPOS3356")
            await reader.disconnect()
        }
    }

    /// A fleet made by count: names `VPOS3356-E001`…, serial numbers `EMU00001`…; a search
    /// takes name prefixes, each name its own member.
    @Test func membersMadeByCountHaveTheirOwnNamesAndSerialNumbers() async throws {
        let fleet = EmulatedReaderFleet(count: 3, clock: clock)
        #expect(try await fleet.scan(for: .zero).map(\.name) == ["VPOS3356-E001", "VPOS3356-E002", "VPOS3356-E003"])
        let found = try await fleet.find(["VPOS3356-E003", "VPOS", "VPOS3356", "VPOS3356-E9"], timeout: .zero)
        #expect(found["VPOS3356-E003"]?.name == "VPOS3356-E003")
        #expect(found["VPOS"]?.name == "VPOS3356-E001")
        #expect(found["VPOS3356"]?.name == "VPOS3356-E002")
        #expect(found["VPOS3356-E9"] == nil)
        // Two names that match the same readers take different ones, even where the readers
        // share a name.
        let unnamed = EmulatedReaderFleet(readers: [
            EmulatedReader(card: .visaTest, clock: clock), EmulatedReader(card: .visaTest, clock: clock),
        ])
        let both = try await unnamed.find(["emulated", "emulated VPOS3356"], timeout: .zero)
        let first = try #require(both["emulated"]), second = try #require(both["emulated VPOS3356"])
        #expect(first.reader !== second.reader)
        var serials: [String?] = []
        for outcome in await fleet.connectAll(try await fleet.scan(for: .zero), clock: clock) {
            let reader = try outcome.result.get()
            serials.append(try await reader.info().serialNumber)
            await reader.disconnect()
        }
        #expect(serials == ["EMU00001", "EMU00002", "EMU00003"])
    }

    /// Each member's name is the `reader` of its metrics and of its emulator's log lines,
    /// so two emulated readers are never counted, or logged, as one.
    @Test func eachMembersNameReachesItsMetricsAndLogs() async throws {
        let metrics = TestMetrics()
        let fleet = EmulatedReaderFleet(count: 2, clock: clock)
        let clock = clock
        let outcomes = await withMetricsFactory(metrics) { await fleet.connectAll(fleet.members, clock: clock) }
        for outcome in outcomes {
            let reader = try outcome.result.get()
            _ = try await reader.info()
            await reader.disconnect()
        }
        for name in ["VPOS3356-E001", "VPOS3356-E002"] {
            let total = metrics.counterTotal(
                label: "cardreader_commands_total", dimensions: [("reader", name), ("command", "get-info"), ("outcome", "success")])
            #expect(total == 1, "\(name)")
        }

        let lines = Locked<[CapturingLogHandler.Line]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let named = EmulatedReader(
            card: .visaTest, configuration: EmulatedReaderConfiguration(name: "VPOS3356-E007"), clock: clock, logger: logger)
        let reader = CardReader(connector: EmulatedReaderConnector(reader: named), clock: clock)
        try await reader.connect()
        _ = try await reader.info()
        await reader.disconnect()
        let logged = lines.withLock { $0 }
        #expect(!logged.isEmpty)
        #expect(logged.allSatisfy { $0.metadata["reader"] == "VPOS3356-E007" })
    }
}
