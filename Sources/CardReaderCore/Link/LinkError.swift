/// Why a link to a reader failed or ended, for every transport: BlueZ, the emulated reader,
/// or one a client writes. ``code`` is what programs decide on; ``detail`` and ``fix`` are
/// for a person (a support engineer reading a log) and never hold card data.
public struct LinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened, as a stable identifier.
    public var code: Code
    /// What the transport said, e.g. the device and BlueZ's error message.
    public var detail: String
    /// What a person can do about it, when the transport knows (start bluetoothd, power the
    /// adapter on, …); nil otherwise.
    public var fix: String?
    /// Whether the link ended because this host's Bluetooth went away (bluetoothd stopped or
    /// restarted, the adapter was removed or switched off), not the reader: what the
    /// transport saw, and what a lane's status reports as `bluetooth-unavailable`.
    public var isHostBluetoothLoss: Bool

    /// A failure with `code`, what the transport said, what to do about it if known, and
    /// whether this host's Bluetooth went away.
    public init(_ code: Code, _ detail: String = "", fix: String? = nil, isHostBluetoothLoss: Bool = false) {
        self.code = code
        self.detail = detail
        self.fix = fix
        self.isHostBluetoothLoss = isHostBluetoothLoss
    }

    /// The code, then the detail: `remote-disconnected: VPOS3356-1A2B disconnected`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code): \(detail)" }

    /// A link failure's identifier: `remote-disconnected`, `bluetoothd-not-running`,
    /// `org.bluez.Error.InProgress`, …
    ///
    /// A struct of static constants rather than an enum, so new codes (a transport's own,
    /// or a name BlueZ adds) break no client: a `switch` over codes has a `default`. The
    /// raw value is the identifier `readerctl --json` prints. This module declares the codes
    /// every transport shares; each transport adds its own (`CardReaderKit` the BlueZ
    /// ones, the emulated reader its faults) in an extension.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }
    }
}

extension LinkError.Code {
    /// The device disconnected, or went out of range.
    public static let remoteDisconnected = Self(rawValue: "remote-disconnected")
    /// The link is not open, or was closed by this side.
    public static let notConnected = Self(rawValue: "not-connected")
    /// The operation was cancelled.
    public static let cancelled = Self(rawValue: "cancelled")
    /// An operation did not finish within its deadline.
    public static let timedOut = Self(rawValue: "timeout")
    /// A link's ``ReaderLink/inbound`` ended without saying why.
    public static let linkClosed = Self(rawValue: "link-closed")
}
