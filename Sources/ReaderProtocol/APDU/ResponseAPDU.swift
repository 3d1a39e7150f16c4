/// A response APDU (ISO/IEC 7816-4 §5.1): response data followed by SW1 SW2.
///
/// The data is ``SensitiveBytes``; descriptions show its length and the status word only.
public struct ResponseAPDU: Sendable, Hashable {
    /// The response data, possibly empty.
    public let data: SensitiveBytes
    /// The trailing status word.
    public let statusWord: StatusWord

    /// A response carrying `data`, then `statusWord`.
    public init(data: SensitiveBytes = SensitiveBytes(), statusWord: StatusWord) {
        self.data = data
        self.statusWord = statusWord
    }

    /// Splits an encoded response: everything but the last 2 bytes is data.
    public init(parsing bytes: SensitiveBytes) throws(APDUError) {
        self = try bytes.withUnsafeBytes { (buffer) throws(APDUError) in try ResponseAPDU(buffer) }
    }

    /// Splits an encoded response from plain bytes.
    public init(parsing bytes: [UInt8]) throws(APDUError) {
        try self.init(parsing: SensitiveBytes(bytes))
    }

    private init(_ bytes: UnsafeRawBufferPointer) throws(APDUError) {
        guard bytes.count >= 2 else { throw .responseTooShort(byteCount: bytes.count) }
        data = SensitiveBytes(bytes[0..<bytes.count - 2])
        statusWord = StatusWord(sw1: bytes[bytes.count - 2], sw2: bytes[bytes.count - 1])
    }

    /// Data followed by SW1 SW2.
    public func encoded() -> SensitiveBytes {
        var bytes = SensitiveBytes(capacity: data.count + 2)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: [statusWord.sw1, statusWord.sw2])
        return bytes
    }
}

extension ResponseAPDU: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// E.g. `12 data bytes, SW 9000 (success)`; never the data.
    public var description: String { "\(data.count) data bytes, SW \(statusWord)" }

    /// ``description`` labelled with the type, e.g. `ResponseAPDU(12 data bytes, SW 9000 (success))`;
    /// never the data.
    public var debugDescription: String { "ResponseAPDU(\(description))" }

    /// The data as ``SensitiveBytes`` (which reflects its length only) and the status word,
    /// so that `dump` and debuggers never show the data.
    public var customMirror: Mirror {
        Mirror(self, children: ["data": data, "statusWord": statusWord.description], displayStyle: .struct)
    }
}
