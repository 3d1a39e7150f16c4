/// Why a connection to a device ended: ``code`` is what programs decide on; ``detail`` is
/// for a person (a support engineer reading a log).
public struct BluetoothLinkLoss: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened, as a stable identifier.
    public var code: BluetoothError.Code
    /// What BlueZ said, e.g. the device and its error message.
    public var detail: String

    public init(_ code: BluetoothError.Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code): \(detail)" }

    /// What a person can do about it (``BluetoothError/Code/fix``), or nil.
    public var fix: String? { code.fix }
}
