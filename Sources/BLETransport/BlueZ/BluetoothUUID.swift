/// A Bluetooth UUID in BlueZ's form: 128 bits, lower case. 16- and 32-bit short forms
/// (`180A`, `0000180a`) expand with the Bluetooth base UUID, so they compare equal to
/// their full form.
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The full form, e.g. `0000180a-0000-1000-8000-00805f9b34fb`.
    public let uuidString: String

    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// Parses a 16-bit, 32-bit or 128-bit UUID; nil if it is none of these.
    public init?(parsing text: String) {
        let lower = text.lowercased()
        let hex = lower.filter { $0 != "-" }
        guard hex.allSatisfy(\.isHexDigit), hex.allSatisfy(\.isASCII) else { return nil }
        switch lower.count {
        case 4: uuidString = "0000" + lower + Self.baseSuffix
        case 8: uuidString = lower + Self.baseSuffix
        case 36:
            let dashes = lower.enumerated().filter { $0.element == "-" }.map(\.offset)
            guard dashes == [8, 13, 18, 23] else { return nil }
            uuidString = lower
        default: return nil
        }
    }

    /// A literal that must be a valid UUID; an invalid literal keeps its lower-cased text
    /// (and so matches nothing BlueZ reports).
    public init(stringLiteral value: String) {
        uuidString = BluetoothUUID(parsing: value)?.uuidString ?? value.lowercased()
    }

    /// The 16-bit form (`180a`) for UUIDs on the Bluetooth base, else nil.
    public var shortForm: String? {
        guard uuidString.hasPrefix("0000"), uuidString.hasSuffix(Self.baseSuffix) else { return nil }
        return String(uuidString.dropFirst(4).prefix(4))
    }

    public var description: String { shortForm ?? uuidString }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool { lhs.uuidString < rhs.uuidString }
}
