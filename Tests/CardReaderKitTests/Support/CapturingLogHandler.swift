import Locking
import Logging

/// Keeps every log line: its level, message and metadata (the handler's and the line's own).
struct CapturingLogHandler: LogHandler {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata

        /// `LEVEL MESSAGE`, e.g. `warning the link is not encrypted`.
        var text: String { "\(level) \(message)" }
    }

    let lines: Locked<[Line]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = Line(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 })
        lines.withLock { $0.append(line) }
    }
}
