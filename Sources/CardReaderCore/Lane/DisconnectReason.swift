/// Why the link to a reader ended, as the SDK worked it out from what it saw: no command
/// for the reader's idle time, a reset the reader announced, a firmware update's restart,
/// this host's own disconnect, bluetoothd or the adapter gone, a bond the reader refused.
/// Never from the link's drop code: BlueZ reports every drop the reader makes as
/// `remote-disconnected`, whatever the cause. ``link`` keeps what the link said.
public struct DisconnectReason: Sendable, Hashable, CustomStringConvertible {
    /// What ended the link.
    public var code: Code
    /// What the link reported, when it reported something (nil for the host's own disconnect).
    public var link: LinkError?

    /// A reason with `code`, and what the link reported.
    public init(_ code: Code, link: LinkError? = nil) {
        self.code = code
        self.link = link
    }

    /// The stable identifier, e.g. `idle`: what `readerctl status --json` prints.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The reader dropped a link that carried no command for its idle time (§8: 5 min).
        public static let idle = Self(rawValue: "idle")
        /// The reader reset itself when the countdown it announced (event `E0 04`) ran out.
        public static let dailyReset = Self(rawValue: "daily-reset")
        /// The reader restarted on a firmware image it had accepted.
        public static let firmwareRestart = Self(rawValue: "firmware-restart")
        /// This host disconnected (``CardReader/disconnect()``).
        public static let host = Self(rawValue: "host-disconnected")
        /// bluetoothd stopped or restarted, or the adapter went away or was switched off.
        public static let bluetoothUnavailable = Self(rawValue: "bluetooth-unavailable")
        /// The reader no longer holds this host's bond.
        public static let bondLost = Self(rawValue: "bond-lost")
        /// This host holds no bond with a reader that needs one.
        public static let notPaired = Self(rawValue: "not-paired")
        /// The reader went away for none of the reasons above: out of range, switched off,
        /// its battery empty.
        public static let readerGone = Self(rawValue: "reader-gone")
    }

    /// In words, e.g. `the reader dropped the idle link (no command for its idle time)`.
    public var description: String {
        switch code {
        case .idle: "the reader dropped the idle link (no command for its idle time)"
        case .dailyReset: "the reader's scheduled reset"
        case .firmwareRestart: "the reader restarted on new firmware"
        case .host: "disconnected by this host"
        case .bluetoothUnavailable: "Bluetooth on this host went away" + (link.map { " (\($0))" } ?? "")
        case .bondLost: "the reader no longer holds this host's bond"
        case .notPaired: "this host is not paired with the reader"
        case .readerGone: "the reader went away (out of range, switched off, or its battery is empty)"
        default: "\(code)" + (link.map { " (\($0))" } ?? "")
        }
    }

    /// What a person can do, when something can be done: the link's fix when it has one.
    public var fix: String? {
        switch code {
        case .bondLost, .notPaired, .bluetoothUnavailable: link?.fix
        case .readerGone: "bring the reader within range, switch it on, or charge it; the lane reconnects by itself"
        default: nil
        }
    }

    /// Whether reconnecting can bring the reader back without a person: not for a bond the
    /// reader refused or never had (pairing mode needs someone at the reader).
    public var isRecoverable: Bool { code != .bondLost && code != .notPaired }

    /// The reason a link failure that needs a person stands for (`bond-lost`, `not-paired`),
    /// or nil when the failure is not one.
    init?(refusal link: LinkError) {
        switch link.code {
        case .bondLost: self.init(.bondLost, link: link)
        case .notPaired: self.init(.notPaired, link: link)
        default: return nil
        }
    }
}
