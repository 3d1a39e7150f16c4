import ReaderProtocol

extension CardReader {
    /// Everything a lane shows about its reader, as one value: the link, the battery, the
    /// firmware, a reset the reader announced and why the link last ended.
    /// ``CardReader/status`` is the value now; ``CardReader/statusUpdates()`` each change.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// What the link can do now.
        public enum Link: Sendable, Hashable, CustomStringConvertible {
            /// No link: before the first connect, or after ``CardReader/disconnect()``.
            case disconnected
            /// ``CardReader/connect(timeout:)`` is opening the link.
            case connecting
            /// Connected, and no command is running: a card operation starts at once.
            case ready
            /// Connected, running this command (a keep-alive does not count).
            case busy(CommandCode)
            /// A firmware update runs: commands fail with ``CardReaderError/Code/updating``.
            case updating(FirmwareUpdateProgress)
            /// The link dropped; the reconnect policy makes this attempt (from 1).
            case reconnecting(attempt: Int, after: DisconnectReason)
            /// The reader reset itself as it announced; the reader is awaited while it restarts.
            case resetting
            /// The link dropped and nothing will bring it back without a person, or the
            /// reconnect policy gave up.
            case lost(DisconnectReason)

            /// A stable name, e.g. `ready` or `reconnecting`: what `readerctl status --json` prints.
            public var name: String {
                switch self {
                case .disconnected: "disconnected"
                case .connecting: "connecting"
                case .ready: "ready"
                case .busy: "busy"
                case .updating: "updating"
                case .reconnecting: "reconnecting"
                case .resetting: "resetting"
                case .lost: "lost"
                }
            }

            /// E.g. `busy (READ MAGNETIC STRIPE)` or `reconnecting (attempt 3, after …)`.
            public var description: String {
                switch self {
                case .busy(let command): "busy (\(command.commandName ?? "\(command)"))"
                case .updating(let progress): "updating (\(progress))"
                case .reconnecting(let attempt, let reason): "reconnecting (attempt \(attempt), after \(reason))"
                case .lost(let reason): "lost (\(reason))"
                default: name
                }
            }

            /// Whether a card operation asked for now would be sent at once, or after the
            /// command running.
            public var acceptsCommands: Bool {
                switch self {
                case .ready, .busy: true
                default: false
                }
            }
        }

        /// What the link can do now.
        public var link: Link
        /// The last battery level read; nil until one has been.
        public var battery: BatteryReading?
        /// The firmware version GET INFO last reported.
        public var firmwareVersion: String?
        /// When the reader said it will reset itself (event `E0 04`), while that is ahead.
        public var resetExpected: WallClockTime?
        /// Why the link last ended, if it has.
        public var lastDisconnect: DisconnectReason?
        /// The update scheduled (``CardReader/schedule(_:)``) and not yet installed.
        public var pendingUpdate: PendingUpdate?
        /// How the last scheduled update ended.
        public var lastUpdate: ScheduledUpdateOutcome?
        /// When it ended.
        public var lastUpdateEnded: WallClockTime?

        /// A scheduled update, as the status shows it.
        public struct PendingUpdate: Sendable, Hashable, CustomStringConvertible {
            /// The image's version.
            public var version: String
            /// Whether it is required (else optional, for its window).
            public var isRequired: Bool

            /// An update of `version`, required or not.
            public init(version: String, isRequired: Bool) {
                self.version = version
                self.isRequired = isRequired
            }

            /// E.g. `3.2.0 (required)`.
            public var description: String { "\(version) (\(isRequired ? "required" : "optional"))" }
        }

        /// A status; the reader builds these (tests and displays may too).
        public init(
            link: Link, battery: BatteryReading? = nil, firmwareVersion: String? = nil, resetExpected: WallClockTime? = nil,
            lastDisconnect: DisconnectReason? = nil, pendingUpdate: PendingUpdate? = nil, lastUpdate: ScheduledUpdateOutcome? = nil,
            lastUpdateEnded: WallClockTime? = nil
        ) {
            self.lastUpdateEnded = lastUpdateEnded
            self.pendingUpdate = pendingUpdate
            self.lastUpdate = lastUpdate
            self.link = link
            self.battery = battery
            self.firmwareVersion = firmwareVersion
            self.resetExpected = resetExpected
            self.lastDisconnect = lastDisconnect
        }

        /// One line, e.g. `ready · battery 85% (get-info, …) · firmware 3.1.0`.
        public var description: String {
            var parts = ["\(link)"]
            if let battery { parts.append("battery \(battery)") }
            if let firmwareVersion { parts.append("firmware \(firmwareVersion)") }
            if let resetExpected { parts.append("reset expected at \(resetExpected)") }
            if let lastDisconnect { parts.append("last disconnect: \(lastDisconnect)") }
            if let pendingUpdate { parts.append("update pending: \(pendingUpdate)") }
            if let lastUpdate { parts.append("last update: \(lastUpdate)" + (lastUpdateEnded.map { " at \($0)" } ?? "")) }
            return parts.joined(separator: " · ")
        }
    }
}
