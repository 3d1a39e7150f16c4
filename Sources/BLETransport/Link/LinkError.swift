/// Why a link to a device failed or ended, for every transport: BlueZ, the emulated
/// reader, or one a client writes. ``code`` is what programs decide on; ``detail`` is for a
/// person (a support engineer reading a log) and never holds card data.
public struct LinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened, as a stable identifier.
    public var code: Code
    /// What the transport said, e.g. the device and BlueZ's error message.
    public var detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code): \(detail)" }

    /// A link failure's identifier: `remote-disconnected`, `bluetoothd-not-running`,
    /// `org.bluez.Error.InProgress`, …
    ///
    /// A struct of static constants rather than an enum, so new codes (a transport's own,
    /// or a name BlueZ adds) break no client: a `switch` over codes has a `default`. The
    /// raw value is the identifier `readerctl --json` prints; BlueZ's and D-Bus's error
    /// names are codes as they are, mapped in one place (``init(dbusErrorName:message:)``).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }
    }
}
