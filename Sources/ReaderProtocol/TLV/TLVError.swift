/// Why bytes are not valid BER-TLV (or a valid data object list). Offsets count from the
/// start of the bytes handed to the parser. Never carries value bytes.
public struct TLVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What is wrong and at which offset, e.g. `value at offset 2 is declared 16 bytes long but only 8 remain`;
    /// never value bytes.
    public var description: String { storage.description }

    /// Where the problem starts, counted from the first byte handed to the parser.
    public var offset: Int {
        switch storage {
        case .truncatedTag(let offset),
            .tagTooLong(let offset),
            .truncatedLength(let offset),
            .indefiniteLength(let offset),
            .lengthFieldTooLong(let offset, _),
            .truncatedValue(let offset, _, _),
            .malformedConstructedValue(_, let offset, _),
            .nestingTooDeep(let offset, _):
            offset
        }
    }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// The tag starting at this offset runs past the end of the data.
    public static func truncatedTag(offset: Int) -> Self {
        Self(.truncatedTag(offset: offset))
    }

    /// The tag starting at this offset is longer than ``BERTag/maximumLength`` bytes.
    public static func tagTooLong(offset: Int) -> Self {
        Self(.tagTooLong(offset: offset))
    }

    /// The length field at this offset is missing or runs past the end of the data.
    public static func truncatedLength(offset: Int) -> Self {
        Self(.truncatedLength(offset: offset))
    }

    /// The length field at this offset is `80` (indefinite length), which EMV does not use.
    public static func indefiniteLength(offset: Int) -> Self {
        Self(.indefiniteLength(offset: offset))
    }

    /// The length field at this offset announces more than 3 length bytes (`84` and above).
    public static func lengthFieldTooLong(offset: Int, lengthByteCount: Int) -> Self {
        Self(.lengthFieldTooLong(offset: offset, lengthByteCount: lengthByteCount))
    }

    /// The value starting at this offset is declared longer than the bytes that remain.
    public static func truncatedValue(offset: Int, declared: Int, available: Int) -> Self {
        Self(.truncatedValue(offset: offset, declared: declared, available: available))
    }

    /// The constructed object with this tag, starting at this offset, holds a value that is not valid BER-TLV.
    public static func malformedConstructedValue(tag: BERTag, offset: Int, reason: TLVError) -> Self {
        Self(.malformedConstructedValue(tag: tag, offset: offset, reason: reason))
    }

    /// The constructed object at this offset would nest deeper than `limit` levels.
    public static func nestingTooDeep(offset: Int, limit: Int) -> Self {
        Self(.nestingTooDeep(offset: offset, limit: limit))
    }

    /// What is wrong, as a stable identifier (`truncated-tag`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The tag starting at this offset runs past the end of the data.
        public static let truncatedTag = Self(rawValue: "truncated-tag")

        /// The tag starting at this offset is longer than ``BERTag/maximumLength`` bytes.
        public static let tagTooLong = Self(rawValue: "tag-too-long")

        /// The length field at this offset is missing or runs past the end of the data.
        public static let truncatedLength = Self(rawValue: "truncated-length")

        /// The length field at this offset is `80` (indefinite length), which EMV does not use.
        public static let indefiniteLength = Self(rawValue: "indefinite-length")

        /// The length field at this offset announces more than 3 length bytes (`84` and above).
        public static let lengthFieldTooLong = Self(rawValue: "length-field-too-long")

        /// The value starting at this offset is declared longer than the bytes that remain.
        public static let truncatedValue = Self(rawValue: "truncated-value")

        /// The constructed object with this tag, starting at this offset, holds a value that is not valid BER-TLV.
        public static let malformedConstructedValue = Self(rawValue: "malformed-constructed-value")

        /// The constructed object at this offset would nest deeper than `limit` levels.
        public static let nestingTooDeep = Self(rawValue: "nesting-too-deep")
    }

    indirect enum Storage: Sendable, Hashable {
        case truncatedTag(offset: Int)
        case tagTooLong(offset: Int)
        case truncatedLength(offset: Int)
        case indefiniteLength(offset: Int)
        case lengthFieldTooLong(offset: Int, lengthByteCount: Int)
        case truncatedValue(offset: Int, declared: Int, available: Int)
        case malformedConstructedValue(tag: BERTag, offset: Int, reason: TLVError)
        case nestingTooDeep(offset: Int, limit: Int)

        var code: Code {
            switch self {
            case .truncatedTag: .truncatedTag
            case .tagTooLong: .tagTooLong
            case .truncatedLength: .truncatedLength
            case .indefiniteLength: .indefiniteLength
            case .lengthFieldTooLong: .lengthFieldTooLong
            case .truncatedValue: .truncatedValue
            case .malformedConstructedValue: .malformedConstructedValue
            case .nestingTooDeep: .nestingTooDeep
            }
        }

        var description: String {
            switch self {
            case .truncatedTag(let offset):
                "tag at offset \(offset) runs past the end of the data"
            case .tagTooLong(let offset):
                "tag at offset \(offset) is longer than \(BERTag.maximumLength) bytes"
            case .truncatedLength(let offset):
                "length field at offset \(offset) is missing or runs past the end of the data"
            case .indefiniteLength(let offset):
                "length field at offset \(offset) is 80 (indefinite length), which EMV does not allow"
            case .lengthFieldTooLong(let offset, let count):
                "length field at offset \(offset) announces \(count) length bytes; EMV allows at most 3 (81, 82, 83)"
            case .truncatedValue(let offset, let declared, let available):
                "value at offset \(offset) is declared \(declared) bytes long but only \(available) remain"
            case .malformedConstructedValue(let tag, let offset, let reason):
                "constructed object \(tag) at offset \(offset) holds invalid BER-TLV: \(reason)"
            case .nestingTooDeep(let offset, let limit):
                "constructed object at offset \(offset) nests deeper than \(limit) levels"
            }
        }
    }
}
