/// A BER-TLV tag as EMV uses it (EMV Book 3 Annex B1, ISO/IEC 8825-1).
///
/// The first byte holds the class (bits 8–7) and the constructed flag (bit 6); when its
/// low 5 bits are all 1, more bytes follow, each with bit 8 set except the last.
/// Tags here are 1 to 4 bytes long. The description is the hex of the bytes, e.g. `9F26`.
public struct BERTag: Sendable, Hashable {
    /// The longest tag accepted.
    public static let maximumLength = 4

    /// The tag's bytes as encoded.
    public let bytes: [UInt8]

    /// Validates a complete encoded tag, e.g. `[0x9F, 0x26]`.
    public init(bytes: some Collection<UInt8>) throws(BERTagError) {
        let array = Array(bytes)
        let result = array.withUnsafeBytes { buffer in
            Result { () throws(TLVError) in try Self.read(buffer, at: 0) }
        }
        switch result {
        case .success(let read):
            guard read.next == array.count else { throw .trailingBytes(array.count - read.next) }
            self = read.tag
        case .failure(let error) where error.code == .tagTooLong:
            throw .tooLong
        case .failure:
            throw array.isEmpty ? .empty : .truncated
        }
    }

    /// Validates a tag written as a number, e.g. `BERTag(0x9F26)` or `BERTag(0x5A)`.
    public init(_ value: UInt32) throws(BERTagError) {
        try self.init(bytes: Self.bigEndianBytes(value))
    }

    /// For the constant tags of ``EMVTag``, which the tests check are well formed.
    init(unchecked value: UInt32) {
        bytes = Self.bigEndianBytes(value)
    }

    /// The tag as a number, e.g. `0x9F26`.
    public var value: UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The four tag classes of bits 8–7 of the first byte.
    public enum TagClass: Sendable, Hashable {
        /// Bits 8–7 `00`: universal (ASN.1's own types).
        case universal
        /// Bits 8–7 `01`: application, e.g. `5A`, `6F`.
        case application
        /// Bits 8–7 `10`: context-specific, e.g. `84`, `9F26`.
        case contextSpecific
        /// Bits 8–7 `11`: private, e.g. `BF0C`.
        case `private`
    }

    /// The class, from bits 8–7 of the first byte.
    public var tagClass: TagClass {
        switch (bytes.first ?? 0) >> 6 {
        case 0: .universal
        case 1: .application
        case 2: .contextSpecific
        default: .private
        }
    }

    /// Whether the value is itself a list of TLV objects (bit 6 of the first byte).
    public var isConstructed: Bool { (bytes.first ?? 0) & 0x20 != 0 }

    /// Reads the tag that starts at `offset`, returning it and the offset after it.
    static func read(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws(TLVError) -> (tag: BERTag, next: Int) {
        guard offset < buffer.count else { throw .truncatedTag(offset: offset) }
        var end = offset + 1
        if buffer[offset] & 0x1F == 0x1F {
            repeat {
                guard end < buffer.count else { throw .truncatedTag(offset: offset) }
                end += 1
                guard end - offset <= maximumLength else { throw .tagTooLong(offset: offset) }
            } while buffer[end - 1] & 0x80 != 0
        }
        return (BERTag(validBytes: Array(buffer[offset..<end])), end)
    }

    private init(validBytes: [UInt8]) {
        bytes = validBytes
    }

    /// The bytes of `value` without leading zero bytes (one `00` for zero).
    private static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
        let all = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * (3 - $0))) }
        let significant = all.drop { $0 == 0 }
        return significant.isEmpty ? [0] : Array(significant)
    }
}

extension BERTag: CustomStringConvertible {
    /// The bytes in hex, e.g. `9F26`.
    public var description: String { bytes.map(\.hexByte).joined() }
}

/// Why bytes are not one well-formed BER tag.
public struct BERTagError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What is wrong with the bytes, e.g. `tag is longer than 4 bytes`.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// No bytes.
    public static let empty = Self(.empty)

    /// The last byte announces another byte (bit 8 set, or a first byte with low 5 bits all 1).
    public static let truncated = Self(.truncated)

    /// More than ``BERTag/maximumLength`` bytes.
    public static let tooLong = Self(.tooLong)

    /// This many bytes follow a complete tag.
    public static func trailingBytes(_ count: Int) -> Self {
        Self(.trailingBytes(count))
    }

    /// What is wrong, as a stable identifier (`empty`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// No bytes.
        public static let empty = Self(rawValue: "empty")

        /// The last byte announces another byte (bit 8 set, or a first byte with low 5 bits all 1).
        public static let truncated = Self(rawValue: "truncated")

        /// More than ``BERTag/maximumLength`` bytes.
        public static let tooLong = Self(rawValue: "too-long")

        /// This many bytes follow a complete tag.
        public static let trailingBytes = Self(rawValue: "trailing-bytes")
    }

    enum Storage: Sendable, Hashable {
        case empty
        case truncated
        case tooLong
        case trailingBytes(Int)

        var code: Code {
            switch self {
            case .empty: .empty
            case .truncated: .truncated
            case .tooLong: .tooLong
            case .trailingBytes: .trailingBytes
            }
        }

        var description: String {
            switch self {
            case .empty: "tag has no bytes"
            case .truncated: "tag ends where its last byte announces another"
            case .tooLong: "tag is longer than \(BERTag.maximumLength) bytes"
            case .trailingBytes(let count): "\(count) bytes follow a complete tag"
            }
        }
    }
}
