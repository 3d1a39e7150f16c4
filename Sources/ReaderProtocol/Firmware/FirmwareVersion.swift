/// A firmware version as dotted numbers (`3.1.0`, `v2.4`, `3.10`), compared number by
/// number, a number left out counting as 0 (`3.1` is `3.1.0`; `3.10.0` is after `3.9.1`,
/// which a comparison of text gets wrong). What does not read so — a suffix such as
/// `-beta`, an empty part, a part of more than 9 digits — has no version: the initialiser
/// returns nil, and a tool must not guess an order.
public struct FirmwareVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numbers, most significant first, without trailing zeros beyond the first
    /// (`3.1.0` keeps all three; equality and order ignore trailing zeros).
    public let numbers: [Int]

    /// The version `text` spells (surrounding spaces and a leading `v` allowed), or nil.
    public init?(_ text: String) {
        var rest = Substring(text).drop { $0 == " " }
        while rest.last == " " { rest = rest.dropLast() }
        if rest.first == "v" || rest.first == "V" { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(part)
            else { return nil }
            numbers.append(number)
        }
        guard !numbers.isEmpty else { return nil }
        self.numbers = numbers
    }

    /// `3.1.0`.
    public var description: String { numbers.map(String.init).joined(separator: ".") }

    /// The numbers with trailing zeros dropped: what equality and order compare.
    private var significant: ArraySlice<Int> {
        numbers.prefix((numbers.lastIndex { $0 != 0 } ?? -1) + 1)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.significant == rhs.significant }

    public func hash(into hasher: inout Hasher) { hasher.combine(Array(significant)) }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        for (left, right) in zip(lhs.significant, rhs.significant) where left != right { return left < right }
        return lhs.significant.count < rhs.significant.count
    }
}
