import BLETransport
import CardReaderKit
import CardReaderKitTesting
import CoreMetrics
import ManualClockSteps
import MetricsTestKit
import Testing

/// The metrics a reader session reports (names and dimensions as the README documents
/// them), through swift-metrics' test factory, set for the reader's creation only. The
/// reader and the emulated reader share a manual clock: a firmware update steps it through
/// the reader's restart; nothing else moves it.
@Suite(.timeLimit(.minutes(1))) struct ReaderMetricsTests {
    let metrics = TestMetrics()
    let name = "emulated VPOS3356"
    let clock = ManualClock()

    func reader(
        scenario: [String] = [], configuration: EmulatedReaderConfiguration = EmulatedReaderConfiguration(),
        reconnect: ReconnectPolicy? = nil
    ) throws -> CardReader {
        let emulator = EmulatedReader(
            card: .visaTest, scenario: try EmulatorScenario(parsing: scenario), configuration: configuration, clock: clock)
        return withMetricsFactory(metrics) {
            CardReader(
                connector: EmulatedReaderConnector(reader: emulator), configuration: .init(reconnect: reconnect), clock: clock)
        }
    }

    func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        metrics.counterTotal(label: label, dimensions: dimensions)
    }

    @Test func commandsCountByKindAndOutcomeWithTheirLatency() async throws {
        let reader = try reader(scenario: ["bad-swipe"])
        try await reader.connect()
        _ = try await reader.info()
        _ = try? await reader.readMagneticStripe(timeout: .seconds(5))
        #expect(total("cardreader_commands_total", [("reader", name), ("command", "get-info"), ("outcome", "success")]) == 1)
        #expect(total("cardreader_commands_total", [("reader", name), ("command", "read-magnetic-stripe"), ("outcome", "bad-swipe")]) == 1)
        let latency = try metrics.expectTimer("cardreader_command_duration", [("reader", name), ("command", "get-info")])
        #expect(latency.values.count == 1)
        // GET INFO reports the emulated reader's 85 %.
        #expect(try metrics.expectGauge("cardreader_battery_percent", [("reader", name)]).lastValue == 85)
    }

    /// By the reason the SDK inferred: a drop mid-command is the reader gone, whatever code
    /// the link reported (`remote-disconnected`, as BlueZ reports every drop).
    @Test func linkLossesCountByReason() async throws {
        let reader = try reader(scenario: ["drop-before-answer"])
        try await reader.connect()
        _ = try? await reader.info()
        #expect(total("cardreader_link_losses_total", [("reader", name), ("reason", "reader-gone")]) == 1)
    }

    @Test func firmwareUpdatesCountByOutcome() async throws {
        let image = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "3.2.0", payload: [1, 2, 3]))
        let fast = EmulatedReaderConfiguration(firmwareDisconnectDelay: .milliseconds(10), firmwareRestartTime: .milliseconds(50))
        let good = try reader(configuration: fast)
        try await good.connect()
        _ = try await clock.advancing(throughSleepsWithin: .milliseconds(50)) { try await good.updateFirmware(image: image).run() }
        let corrupt = try reader(scenario: ["firmware-corrupt"], configuration: fast)
        try await corrupt.connect()
        _ = try? await corrupt.updateFirmware(image: image).run()
        #expect(total("cardreader_firmware_updates_total", [("reader", name), ("outcome", "updated")]) == 1)
        #expect(total("cardreader_firmware_updates_total", [("reader", name), ("outcome", "firmware-verification-failed")]) == 1)
        // The restart the update expects is no link loss.
        #expect(metrics.counters(label: "cardreader_link_losses_total").isEmpty)
    }

    /// A reader may drop the link at once after its last ACK (§7.2 allows up to 2 s), while
    /// that ACK still waits to be read: the drop is the restart, not a link loss, and a
    /// reconnect policy does not start a second reconnection beside the update's.
    @Test(arguments: 1...5) func aDropRightAfterTheLastACKIsTheRestart(run: Int) async throws {
        let image = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "3.2.0", payload: [1, 2, 3]))
        let prompt = EmulatedReaderConfiguration(firmwareDisconnectDelay: .zero, firmwareRestartTime: .milliseconds(50))
        let reader = try reader(configuration: prompt, reconnect: ReconnectPolicy())
        try await reader.connect()
        let report = try await clock.advancing(throughSleepsWithin: .milliseconds(50)) {
            try await reader.updateFirmware(image: image).run()
        }
        #expect(report.version == "3.2.0")
        #expect(try await reader.info().firmwareVersion == "3.2.0")
        #expect(metrics.counters(label: "cardreader_link_losses_total").isEmpty)
        #expect(metrics.counters(label: "cardreader_reconnects_total").isEmpty)
        await reader.disconnect()
    }
}
