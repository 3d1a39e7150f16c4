/// Why bytes are not a valid APDU, or why a command cannot be built. Never carries payload bytes.
public enum APDUError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A command APDU has fewer than the 4 header bytes.
    case commandTooShort(byteCount: Int)
    /// A response APDU has fewer than the 2 status bytes.
    case responseTooShort(byteCount: Int)
    /// Byte 4 is `00` (extended length) but the command is only 6 bytes, too short for a 2-byte length.
    case truncatedExtendedLength(byteCount: Int)
    /// Extended Lc (offsets 5–6) is `0000`, which ISO/IEC 7816-4 does not allow.
    case zeroExtendedLc
    /// Lc announces `lc` data bytes, but the command's total length fits neither case 3 nor case 4.
    case lengthMismatch(lc: Int, extended: Bool, byteCount: Int)
    /// More data than the 65,535 bytes an extended Lc can announce.
    case dataTooLong(byteCount: Int)
    /// An expected length outside 1…65,536.
    case expectedLengthOutOfRange(Int)
    /// A READ RECORD record number outside 1…255.
    case invalidRecordNumber(Int)
    /// A short file identifier outside 1…30.
    case invalidShortFileIdentifier(Int)
    /// GET DATA addresses a data object by P1 P2, so its tag must be 1 or 2 bytes.
    case tagTooLongForGetData(BERTag)

    /// What is wrong, with the lengths or values involved, e.g. `record number 0 is outside 1…255`.
    public var description: String {
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
