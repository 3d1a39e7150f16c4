@testable import CardReaderCore
import CardReaderKit
@testable import CardReaderKitTesting
import Logging
import Testing

/// A library logs nothing its backend did not ask for: every logger the SDK makes for
/// itself discards what it is given, whatever `LoggingSystem` the process bootstrapped
/// (swift-log's own default writes to standard output). A backend passes a `Logger` to
/// see the SDK's lines.
struct DefaultLoggingTests {
    @Test func withoutALoggerTheSDKLogsNothing() async {
        let emulator = EmulatedReader(card: .visaTest)
        let reader = CardReader(connector: EmulatedReaderConnector(reader: emulator))
        #expect(await reader.logger.handler is SwiftLogNoOpLogHandler)
        #expect(await emulator.logger.handler is SwiftLogNoOpLogHandler)
        #expect(BlueZReaderConnector(reader: "VPOS3356-1A2B").logger.handler is SwiftLogNoOpLogHandler)
        #expect(EmulatedReaderFleet(readers: [emulator]).logger.handler is SwiftLogNoOpLogHandler)
    }

    @Test func aLoggerGivenIsTheOneUsed() async {
        var logger = Logger(label: "pos.lane-3.reader")
        logger.logLevel = .debug
        let reader = CardReader(connector: EmulatedReaderConnector(reader: EmulatedReader(card: .visaTest)), logger: logger)
        #expect(await reader.logger.label == "pos.lane-3.reader")
        #expect(await reader.logger.logLevel == .debug)
    }
}
