/// Why a firmware image cannot be sent: each case names what was expected and what was
/// found (reader documentation §7.3).
public enum FirmwareImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not start with `VPFW`.
    case wrongMagic(found: [UInt8])
    /// The format version is not `01`.
    case unsupportedFormat(found: UInt8)
    /// The file ends inside `field`.
    case truncated(field: String, offset: Int, size: Int)
    /// The model or the version holds bytes outside printable ASCII.
    case notASCII(field: String)
    /// The file is not exactly header + payload + CRC long.
    case wrongLength(expected: Int, found: Int, payloadLength: Int)
    /// Larger than the reader accepts.
    case tooLarge(size: Int, limit: Int)
    /// The CRC-32 at the end does not match the bytes before it.
    case crcMismatch(stored: UInt32, computed: UInt32)
    /// The image is for another model than the reader's.
    case wrongModel(image: String, reader: String)

    /// What was expected and what was found, e.g. `the firmware image is for VPOS3357, the reader is a VPOS3356`.
    public var description: String {
        switch self {
        case .wrongMagic(let found):
            "not a firmware image: it starts with \(HexText.string(found)), not VPFW (56 50 46 57)"
        case .unsupportedFormat(let found):
            "firmware image format \(HexText.string([found])) is not supported (expected 01)"
        case .truncated(let field, let offset, let size):
            "the firmware image ends inside \(field) (offset \(offset) of \(size) bytes)"
        case .notASCII(let field):
            "the firmware image's \(field) is not printable ASCII"
        case .wrongLength(let expected, let found, let payloadLength):
            "the firmware image is \(found) bytes long; its header (payload of \(payloadLength) bytes) makes it \(expected)"
        case .tooLarge(let size, let limit):
            "the firmware image is \(size) bytes; the reader accepts at most \(limit)"
        case .crcMismatch(let stored, let computed):
            "the firmware image is damaged: its CRC-32 says \(hex(stored)), its bytes give \(hex(computed))"
        case .wrongModel(let image, let reader):
            "the firmware image is for \(image), the reader is a \(reader)"
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
