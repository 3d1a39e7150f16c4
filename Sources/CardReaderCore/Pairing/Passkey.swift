/// The six digits a reader with a display shows while it pairs by Passkey Entry (reader
/// documentation §1.1), as this host's user types them. A pairing secret: its
/// `description` never shows the digits, and nothing logs them.
public struct Passkey: Sendable, Hashable, CustomStringConvertible {
    /// The digits as a number, 0…999 999.
    public let value: UInt32

    /// The passkey `value`; nil above 999 999.
    public init?(_ value: UInt32) {
        guard value <= 999_999 else { return nil }
        self.value = value
    }

    /// The passkey typed as exactly six digits, e.g. `"004271"`; nil for anything else.
    public init?(digits: some StringProtocol) {
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt32(digits) else {
            return nil
        }
        self.value = value
    }

    /// The six digits, with leading zeros: what the reader displays.
    public var digits: String {
        let text = String(value)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    /// `••••••`: never the digits.
    public var description: String { "••••••" }
}
