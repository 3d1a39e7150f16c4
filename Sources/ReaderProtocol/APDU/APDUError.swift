/// Why bytes are not a valid APDU, or why a command cannot be built. Never carries payload bytes.
public struct APDUError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What is wrong, with the lengths or values involved, e.g. `record number 0 is outside 1…255`.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// A command APDU has fewer than the 4 header bytes.
    public static func commandTooShort(byteCount: Int) -> Self {
        Self(.commandTooShort(byteCount: byteCount))
    }

    /// A response APDU has fewer than the 2 status bytes.
    public static func responseTooShort(byteCount: Int) -> Self {
        Self(.responseTooShort(byteCount: byteCount))
    }

    /// Byte 4 is `00` (extended length) but the command is only 6 bytes, too short for a 2-byte length.
    public static func truncatedExtendedLength(byteCount: Int) -> Self {
        Self(.truncatedExtendedLength(byteCount: byteCount))
    }

    /// Extended Lc (offsets 5–6) is `0000`, which ISO/IEC 7816-4 does not allow.
    public static let zeroExtendedLc = Self(.zeroExtendedLc)

    /// Lc announces `lc` data bytes, but the command's total length fits neither case 3 nor case 4.
    public static func lengthMismatch(lc: Int, extended: Bool, byteCount: Int) -> Self {
        Self(.lengthMismatch(lc: lc, extended: extended, byteCount: byteCount))
    }

    /// More data than the 65,535 bytes an extended Lc can announce.
    public static func dataTooLong(byteCount: Int) -> Self {
        Self(.dataTooLong(byteCount: byteCount))
    }

    /// An expected length outside 1…65,536.
    public static func expectedLengthOutOfRange(_ length: Int) -> Self {
        Self(.expectedLengthOutOfRange(length))
    }

    /// A READ RECORD record number outside 1…255.
    public static func invalidRecordNumber(_ record: Int) -> Self {
        Self(.invalidRecordNumber(record))
    }

    /// A short file identifier outside 1…30.
    public static func invalidShortFileIdentifier(_ sfi: Int) -> Self {
        Self(.invalidShortFileIdentifier(sfi))
    }

    /// GET DATA addresses a data object by P1 P2, so its tag must be 1 or 2 bytes.
    public static func tagTooLongForGetData(_ tag: BERTag) -> Self {
        Self(.tagTooLongForGetData(tag))
    }

    /// What is wrong, as a stable identifier (`command-too-short`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// A command APDU has fewer than the 4 header bytes.
        public static let commandTooShort = Self(rawValue: "command-too-short")

        /// A response APDU has fewer than the 2 status bytes.
        public static let responseTooShort = Self(rawValue: "response-too-short")

        /// Byte 4 is `00` (extended length) but the command is only 6 bytes, too short for a 2-byte length.
        public static let truncatedExtendedLength = Self(rawValue: "truncated-extended-length")

        /// Extended Lc (offsets 5–6) is `0000`, which ISO/IEC 7816-4 does not allow.
        public static let zeroExtendedLc = Self(rawValue: "zero-extended-lc")

        /// Lc announces `lc` data bytes, but the command's total length fits neither case 3 nor case 4.
        public static let lengthMismatch = Self(rawValue: "length-mismatch")

        /// More data than the 65,535 bytes an extended Lc can announce.
        public static let dataTooLong = Self(rawValue: "data-too-long")

        /// An expected length outside 1…65,536.
        public static let expectedLengthOutOfRange = Self(rawValue: "expected-length-out-of-range")

        /// A READ RECORD record number outside 1…255.
        public static let invalidRecordNumber = Self(rawValue: "invalid-record-number")

        /// A short file identifier outside 1…30.
        public static let invalidShortFileIdentifier = Self(rawValue: "invalid-short-file-identifier")

        /// GET DATA addresses a data object by P1 P2, so its tag must be 1 or 2 bytes.
        public static let tagTooLongForGetData = Self(rawValue: "tag-too-long-for-get-data")
    }

    enum Storage: Sendable, Hashable {
        case commandTooShort(byteCount: Int)
        case responseTooShort(byteCount: Int)
        case truncatedExtendedLength(byteCount: Int)
        case zeroExtendedLc
        case lengthMismatch(lc: Int, extended: Bool, byteCount: Int)
        case dataTooLong(byteCount: Int)
        case expectedLengthOutOfRange(Int)
        case invalidRecordNumber(Int)
        case invalidShortFileIdentifier(Int)
        case tagTooLongForGetData(BERTag)

        var code: Code {
            switch self {
            case .commandTooShort: .commandTooShort
            case .responseTooShort: .responseTooShort
            case .truncatedExtendedLength: .truncatedExtendedLength
            case .zeroExtendedLc: .zeroExtendedLc
            case .lengthMismatch: .lengthMismatch
            case .dataTooLong: .dataTooLong
            case .expectedLengthOutOfRange: .expectedLengthOutOfRange
            case .invalidRecordNumber: .invalidRecordNumber
            case .invalidShortFileIdentifier: .invalidShortFileIdentifier
            case .tagTooLongForGetData: .tagTooLongForGetData
            }
        }

        var description: String {
            switch self {
            case .commandTooShort(let count):
                "command APDU has \(count) bytes; the header alone needs 4"
            case .responseTooShort(let count):
                "response APDU has \(count) bytes; SW1 SW2 alone need 2"
            case .truncatedExtendedLength(let count):
                "command APDU has 00 at offset 4 (extended length) but only \(count) bytes; an extended length needs 7"
            case .zeroExtendedLc:
                "extended Lc at offsets 5–6 is 0000; Lc must be at least 1"
            case .lengthMismatch(let lc, let extended, let count):
                extended
                    ? "extended Lc at offsets 5–6 announces \(lc) data bytes, so the APDU must be \(7 + lc) or \(9 + lc) bytes; it is \(count)"
                    : "Lc at offset 4 announces \(lc) data bytes, so the APDU must be \(5 + lc) or \(6 + lc) bytes; it is \(count)"
            case .dataTooLong(let count):
                "command data is \(count) bytes; at most \(CommandAPDU.maximumDataLength) fit an APDU"
            case .expectedLengthOutOfRange(let length):
                "expected length \(length) is outside 1…\(CommandAPDU.maximumExpectedLength)"
            case .invalidRecordNumber(let record):
                "record number \(record) is outside 1…255"
            case .invalidShortFileIdentifier(let sfi):
                "short file identifier \(sfi) is outside 1…30"
            case .tagTooLongForGetData(let tag):
                "tag \(tag) is longer than the 2 bytes GET DATA can address in P1 P2"
            }
        }
    }
}
