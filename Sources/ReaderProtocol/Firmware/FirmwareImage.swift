/// A reader firmware image (`.vfw`, reader documentation §7.3), checked before a byte of it
/// is sent: magic, format, lengths and CRC-32. The payload is opaque.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | `VPFW` |
/// | 4 | 1 | format `01` |
/// | 5 | 1 | N, then N bytes of model (ASCII) |
/// | 6+N | 1 | M, then M bytes of version (ASCII) |
/// | 7+N+M | 4 | payload length P, big-endian, then P bytes of payload |
/// | 11+N+M+P | 4 | CRC-32 (ISO-HDLC) of every byte before it, big-endian |
///
/// Its `description` names the image (`VPOS3356 firmware 2.5.0, 3028 bytes`), never its bytes.
public struct FirmwareImage: Sendable, Hashable, CustomStringConvertible {
    /// The magic the file starts with: `VPFW`.
    public static let magic: [UInt8] = Array("VPFW".utf8)
    /// The only format version the reader knows.
    public static let formatVersion: UInt8 = 0x01
    /// The largest image the reader accepts (ENTER FIRMWARE UPDATE answers `07` above it).
    public static let maximumSize = 1_048_576

    /// The model the image is for, e.g. `VPOS3356`: it must equal GET INFO's model.
    public let model: String
    /// The firmware version the reader reports after the update, e.g. `2.5.0`.
    public let version: String
    /// The whole file, as it is sent.
    public let bytes: [UInt8]
    /// The payload's length.
    public let payloadLength: Int

    /// Parses and checks `bytes`; every way the file can be wrong is a
    /// ``FirmwareImageError`` naming what was expected and what was found.
    public init(bytes: [UInt8]) throws(FirmwareImageError) {
        var reader = ByteReader(bytes)
        let magic = try reader.take(4, "the magic")
        guard magic == Self.magic else { throw .wrongMagic(found: magic) }
        let format = try reader.take(1, "the format version")[0]
        guard format == Self.formatVersion else { throw .unsupportedFormat(found: format) }
        let model = try reader.text("the model")
        let version = try reader.text("the version")
        let lengthBytes = try reader.take(4, "the payload length")
        let payloadLength = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
        let expectedSize = reader.offset + payloadLength + 4
        guard bytes.count == expectedSize else {
            throw .wrongLength(expected: expectedSize, found: bytes.count, payloadLength: payloadLength)
        }
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(size: bytes.count, limit: Self.maximumSize) }
        let body = bytes[..<(bytes.count - 4)]
        let stored = bytes[(bytes.count - 4)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let computed = CRC32.checksum(body)
        guard stored == computed else { throw .crcMismatch(stored: stored, computed: computed) }
        self.model = model
        self.version = version
        self.bytes = bytes
        self.payloadLength = payloadLength
    }

    /// `VPOS3356 firmware 2.5.0, 3028 bytes`.
    public var description: String { "\(model) firmware \(version), \(bytes.count) bytes" }

    /// Throws ``FirmwareImageError/wrongModel(image:reader:)`` unless the image is for `model`.
    public func check(model readerModel: String) throws(FirmwareImageError) {
        guard model == readerModel else { throw .wrongModel(image: model, reader: readerModel) }
    }

    /// The bytes of an image for `model` and `version` around `payload`, with its CRC-32
    /// (for tests, the emulated reader and tools that package images).
    public static func encode(model: String, version: String, payload: [UInt8]) -> [UInt8] {
        var bytes = magic + [formatVersion]
        for text in [model, version] {
            let utf8 = Array(text.utf8.prefix(255))
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        let length = UInt32(truncatingIfNeeded: payload.count)
        bytes += [UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        bytes += payload
        let crc = CRC32.checksum(bytes)
        bytes += [UInt8(crc >> 24), UInt8(truncatingIfNeeded: crc >> 16), UInt8(truncatingIfNeeded: crc >> 8), UInt8(truncatingIfNeeded: crc)]
        return bytes
    }
}

/// Reads a firmware header field by field, naming the field that runs past the end.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func take(_ count: Int, _ field: String) throws(FirmwareImageError) -> [UInt8] {
        guard count <= bytes.count - offset else {
            throw .truncated(field: field, offset: offset, size: bytes.count)
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// A length byte, then that many ASCII bytes.
    mutating func text(_ field: String) throws(FirmwareImageError) -> String {
        let length = Int(try take(1, "the length of \(field)")[0])
        let text = try take(length, field)
        guard text.allSatisfy({ (0x20..<0x7F).contains($0) }) else { throw .notASCII(field: field) }
        return String(decoding: text, as: UTF8.self)
    }
}
