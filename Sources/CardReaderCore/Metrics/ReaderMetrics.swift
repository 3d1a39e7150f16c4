import CoreMetrics
import ReaderProtocol

/// What a reader reports through swift-metrics: a no-op until the application
/// bootstraps a backend (`MetricsSystem.bootstrap`). Every metric carries the `reader`
/// dimension (the connector's description, e.g. `VPOS3356-0001 (00:AA:01:00:00:00)`).
///
/// | metric | kind | dimensions |
/// |---|---|---|
/// | `cardreader_commands_total` | counter | `reader`, `command` (`get-info`, `icc-apdu`, …), `outcome` (`success` or the error's identifier) |
/// | `cardreader_command_duration` | timer (ns) | `reader`, `command` |
/// | `cardreader_link_losses_total` | counter | `reader`, `reason` (the link error's code) |
/// | `cardreader_reconnects_total` | counter | `reader`, `outcome` (`reconnected`, `gave-up`) |
/// | `cardreader_firmware_updates_total` | counter | `reader`, `outcome` (`updated` or the error's identifier) |
/// | `cardreader_battery_percent` | gauge | `reader` |
struct ReaderMetrics: Sendable {
    let reader: String
    let factory: any MetricsFactory

    /// Metrics for `reader` through the factory in effect now (the bootstrapped one, or a
    /// task-local one).
    init(reader: String, factory: any MetricsFactory = MetricsSystem.factory) {
        self.reader = reader
        self.factory = factory
    }

    func command(_ code: CommandCode, outcome: String, duration: Duration) {
        let name = Self.name(of: code)
        Counter(
            label: "cardreader_commands_total", dimensions: [("reader", reader), ("command", name), ("outcome", outcome)],
            factory: factory
        ).increment()
        let (seconds, attoseconds) = duration.components
        CoreMetrics.Timer(label: "cardreader_command_duration", dimensions: [("reader", reader), ("command", name)], factory: factory)
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func linkLost(_ reason: DisconnectReason) {
        Counter(
            label: "cardreader_link_losses_total", dimensions: [("reader", reader), ("reason", reason.code.rawValue)],
            factory: factory
        ).increment()
    }

    func reconnect(outcome: String) {
        Counter(
            label: "cardreader_reconnects_total", dimensions: [("reader", reader), ("outcome", outcome)], factory: factory
        ).increment()
    }

    func firmwareUpdate(outcome: String) {
        Counter(
            label: "cardreader_firmware_updates_total", dimensions: [("reader", reader), ("outcome", outcome)],
            factory: factory
        ).increment()
    }

    func battery(_ percent: UInt8) {
        Gauge(label: "cardreader_battery_percent", dimensions: [("reader", reader)], factory: factory).record(percent)
    }

    /// `GET INFO` → `get-info`; a code without a name as its hex, e.g. `c0-7f`.
    static func name(of code: CommandCode) -> String {
        guard let name = code.commandName else {
            return "\(code)".lowercased().replacingSpaces()
        }
        return name.lowercased().replacingSpaces()
    }
}

extension String {
    fileprivate func replacingSpaces() -> String {
        String(map { $0 == " " ? "-" : $0 })
    }
}
