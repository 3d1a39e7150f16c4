extension UInt8 {
    /// Two upper-case hex digits, e.g. `9F`.
    var hexByte: String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(self >> 4)], digits[Int(self & 0x0F)]])
    }
}

extension Sequence<UInt8> {
    /// Upper-case hex, a space between bytes: `02 C0 01`.
    var hexString: String { HexText.string(self) }
}

/// Hex text as people write bytes: two ASCII digits per byte, upper or lower case, white
/// space anywhere between digits (`02 C0 01`, `02c001`). Other scripts' digits (full-width
/// `０２`) are not hex.
public enum HexText {
    /// Why text is not hex bytes.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// A character that is neither a hex digit nor white space.
        case invalidDigit(Character)
        /// The digits do not pair up into whole bytes.
        case oddDigitCount

        /// The offending character or the odd count, e.g. `'G' is not a hex digit`.
        public var description: String {
            switch self {
            case .invalidDigit(let character): "'\(character)' is not a hex digit"
            case .oddDigitCount: "odd number of hex digits: bytes are two digits each"
            }
        }
    }

    /// `bytes` as upper-case hex, `separator` between bytes: `02 C0 01`.
    public static func string(_ bytes: some Sequence<UInt8>, separator: String = " ") -> String {
        bytes.map(\.hexByte).joined(separator: separator)
    }

    /// The bytes `text` spells.
    public static func bytes(_ text: some StringProtocol) throws(Problem) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text where !character.isWhitespace {
            guard character.isASCII, let nibble = character.hexDigitValue.map(UInt8.init) else {
                throw .invalidDigit(character)
            }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { throw .oddDigitCount }
        return bytes
    }
}
