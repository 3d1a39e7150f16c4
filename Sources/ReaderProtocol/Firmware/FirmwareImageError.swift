/// Why a firmware image cannot be sent: each case names what was expected and what was
/// found (reader documentation §7.3).
public struct FirmwareImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What was expected and what was found, e.g. `the firmware image is for VPOS3357, the reader is a VPOS3356`.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// The file does not start with `VPFW`.
    public static func wrongMagic(found: [UInt8]) -> Self {
        Self(.wrongMagic(found: found))
    }

    /// The format version is not `01`.
    public static func unsupportedFormat(found: UInt8) -> Self {
        Self(.unsupportedFormat(found: found))
    }

    /// The file ends inside `field`.
    public static func truncated(field: String, offset: Int, size: Int) -> Self {
        Self(.truncated(field: field, offset: offset, size: size))
    }

    /// The model or the version holds bytes outside printable ASCII.
    public static func notASCII(field: String) -> Self {
        Self(.notASCII(field: field))
    }

    /// The file is not exactly header + payload + CRC long.
    public static func wrongLength(expected: Int, found: Int, payloadLength: Int) -> Self {
        Self(.wrongLength(expected: expected, found: found, payloadLength: payloadLength))
    }

    /// Larger than the reader accepts.
    public static func tooLarge(size: Int, limit: Int) -> Self {
        Self(.tooLarge(size: size, limit: limit))
    }

    /// The CRC-32 at the end does not match the bytes before it.
    public static func crcMismatch(stored: UInt32, computed: UInt32) -> Self {
        Self(.crcMismatch(stored: stored, computed: computed))
    }

    /// The image is for another model than the reader's.
    public static func wrongModel(image: String, reader: String) -> Self {
        Self(.wrongModel(image: image, reader: reader))
    }

    /// The file cannot be read: `reason` says why, e.g. `no such file`.
    public static func unreadable(path: String, reason: String) -> Self {
        Self(.unreadable(path: path, reason: reason))
    }

    /// What is wrong, as a stable identifier (`wrong-magic`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The file does not start with `VPFW`.
        public static let wrongMagic = Self(rawValue: "wrong-magic")

        /// The format version is not `01`.
        public static let unsupportedFormat = Self(rawValue: "unsupported-format")

        /// The file ends inside `field`.
        public static let truncated = Self(rawValue: "truncated")

        /// The model or the version holds bytes outside printable ASCII.
        public static let notASCII = Self(rawValue: "not-ascii")

        /// The file is not exactly header + payload + CRC long.
        public static let wrongLength = Self(rawValue: "wrong-length")

        /// Larger than the reader accepts.
        public static let tooLarge = Self(rawValue: "too-large")

        /// The CRC-32 at the end does not match the bytes before it.
        public static let crcMismatch = Self(rawValue: "crc-mismatch")

        /// The image is for another model than the reader's.
        public static let wrongModel = Self(rawValue: "wrong-model")

        /// The file cannot be read.
        public static let unreadable = Self(rawValue: "unreadable")
    }

    enum Storage: Sendable, Hashable {
        case wrongMagic(found: [UInt8])
        case unsupportedFormat(found: UInt8)
        case truncated(field: String, offset: Int, size: Int)
        case notASCII(field: String)
        case wrongLength(expected: Int, found: Int, payloadLength: Int)
        case tooLarge(size: Int, limit: Int)
        case crcMismatch(stored: UInt32, computed: UInt32)
        case wrongModel(image: String, reader: String)
        case unreadable(path: String, reason: String)

        var code: Code {
            switch self {
            case .wrongMagic: .wrongMagic
            case .unsupportedFormat: .unsupportedFormat
            case .truncated: .truncated
            case .notASCII: .notASCII
            case .wrongLength: .wrongLength
            case .tooLarge: .tooLarge
            case .crcMismatch: .crcMismatch
            case .wrongModel: .wrongModel
            case .unreadable: .unreadable
            }
        }

        var description: String {
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
            case .unreadable(let path, let reason):
                "cannot read the firmware image \(path): \(reason)"
            }
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
