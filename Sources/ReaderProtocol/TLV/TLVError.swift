/// Why bytes are not valid BER-TLV (or a valid data object list). Offsets count from the
/// start of the bytes handed to the parser. Never carries value bytes.
public indirect enum TLVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The tag starting at this offset runs past the end of the data.
    case truncatedTag(offset: Int)
    /// The tag starting at this offset is longer than ``BERTag/maximumLength`` bytes.
    case tagTooLong(offset: Int)
    /// The length field at this offset is missing or runs past the end of the data.
    case truncatedLength(offset: Int)
    /// The length field at this offset is `80` (indefinite length), which EMV does not use.
    case indefiniteLength(offset: Int)
    /// The length field at this offset announces more than 3 length bytes (`84` and above).
    case lengthFieldTooLong(offset: Int, lengthByteCount: Int)
    /// The value starting at this offset is declared longer than the bytes that remain.
    case truncatedValue(offset: Int, declared: Int, available: Int)
    /// The constructed object with this tag, starting at this offset, holds a value that is not valid BER-TLV.
    case malformedConstructedValue(tag: BERTag, offset: Int, reason: TLVError)
    /// The constructed object at this offset would nest deeper than `limit` levels.
    case nestingTooDeep(offset: Int, limit: Int)

    /// What is wrong and at which offset, e.g. `value at offset 2 is declared 16 bytes long but only 8 remain`;
    /// never value bytes.
    public var description: String {
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
