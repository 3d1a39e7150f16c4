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
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
        public var code: Code { storage.code }

        /// The offending character or the odd count, e.g. `'G' is not a hex digit`.
        public var description: String { storage.description }

        let storage: Storage

        init(_ storage: Storage) {
            self.storage = storage
        }

        /// A character that is neither a hex digit nor white space.
        public static func invalidDigit(_ character: Character) -> Self {
            Self(.invalidDigit(character))
        }

        /// The digits do not pair up into whole bytes.
        public static let oddDigitCount = Self(.oddDigitCount)

        /// What is wrong, as a stable identifier (`invalid-digit`).
        public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            /// A character that is neither a hex digit nor white space.
            public static let invalidDigit = Self(rawValue: "invalid-digit")

            /// The digits do not pair up into whole bytes.
            public static let oddDigitCount = Self(rawValue: "odd-digit-count")
        }

        enum Storage: Sendable, Hashable {
            case invalidDigit(Character)
            case oddDigitCount

            var code: Code {
                switch self {
                case .invalidDigit: .invalidDigit
                case .oddDigitCount: .oddDigitCount
                }
            }

            var description: String {
                switch self {
                case .invalidDigit(let character): "'\(character)' is not a hex digit"
                case .oddDigitCount: "odd number of hex digits: bytes are two digits each"
                }
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
