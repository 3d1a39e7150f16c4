/// A command APDU (ISO/IEC 7816-4 §5.1): header CLA INS P1 P2, optional data, optional
/// expected response length Le.
///
/// Le is held as the number of bytes expected: short Le `00` means 256 and extended Le
/// `0000` means 65,536. The data is ``SensitiveBytes``; descriptions show the header and
/// lengths, never the data.
public struct CommandAPDU: Sendable, Hashable {
    /// The most data an extended Lc can announce.
    public static let maximumDataLength = 65_535
    /// The largest expected length: extended Le `0000`.
    public static let maximumExpectedLength = 65_536

    /// The class byte.
    public let cla: UInt8
    /// The instruction byte.
    public let ins: UInt8
    /// Parameter 1.
    public let p1: UInt8
    /// Parameter 2.
    public let p2: UInt8
    /// The command data (Lc is its count); empty for cases 1 and 2.
    public let data: SensitiveBytes
    /// The expected response length, 1…65,536, or `nil` for cases 1 and 3.
    public let expectedLength: Int?

    /// The four structures of ISO/IEC 7816-4 §5.1.
    public enum Case: Int, Sendable, Hashable {
        /// No data, no Le.
        case case1 = 1
        /// Le only.
        case case2 = 2
        /// Data only.
        case case3 = 3
        /// Data and Le.
        case case4 = 4
    }

    /// Validates data (≤ 65,535 bytes) and the expected length (1…65,536).
    public init(
        cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: SensitiveBytes = SensitiveBytes(),
        expectedLength: Int? = nil
    ) throws(APDUError) {
        guard data.count <= Self.maximumDataLength else { throw .dataTooLong(byteCount: data.count) }
        if let expectedLength, !(1...Self.maximumExpectedLength).contains(expectedLength) {
            throw .expectedLengthOutOfRange(expectedLength)
        }
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.expectedLength = expectedLength
    }

    /// Parses an encoded command, short or extended (ISO/IEC 7816-4 §5.1).
    ///
    /// Extended length is recognised by `00` at offset 4 in a command longer than 5 bytes.
    /// The length must match the case exactly; extended Lc `0000` is rejected.
    public init(parsing bytes: SensitiveBytes) throws(APDUError) {
        self = try bytes.withUnsafeBytes { (buffer) throws(APDUError) in try CommandAPDU(buffer) }
    }

    /// Parses an encoded command from plain bytes.
    public init(parsing bytes: [UInt8]) throws(APDUError) {
        try self.init(parsing: SensitiveBytes(bytes))
    }

    private init(_ bytes: UnsafeRawBufferPointer) throws(APDUError) {
        let count = bytes.count
        guard count >= 4 else { throw .commandTooShort(byteCount: count) }
        var data = SensitiveBytes()
        var expectedLength: Int?
        if count == 5 {
            expectedLength = bytes[4] == 0 ? 256 : Int(bytes[4])
        } else if count > 5, bytes[4] != 0 {
            let lc = Int(bytes[4])
            guard count == 5 + lc || count == 6 + lc else {
                throw .lengthMismatch(lc: lc, extended: false, byteCount: count)
            }
            data = SensitiveBytes(bytes[5..<5 + lc])
            if count == 6 + lc { expectedLength = bytes[count - 1] == 0 ? 256 : Int(bytes[count - 1]) }
        } else if count > 5 {
            guard count >= 7 else { throw .truncatedExtendedLength(byteCount: count) }
            if count == 7 {
                expectedLength = Self.extendedLength(bytes[5], bytes[6])
            } else {
                let lc = Int(bytes[5]) << 8 | Int(bytes[6])
                guard lc != 0 else { throw .zeroExtendedLc }
                guard count == 7 + lc || count == 9 + lc else {
                    throw .lengthMismatch(lc: lc, extended: true, byteCount: count)
                }
                data = SensitiveBytes(bytes[7..<7 + lc])
                if count == 9 + lc { expectedLength = Self.extendedLength(bytes[count - 2], bytes[count - 1]) }
            }
        }
        try self.init(cla: bytes[0], ins: bytes[1], p1: bytes[2], p2: bytes[3], data: data, expectedLength: expectedLength)
    }

    /// A 2-byte extended Le field; `0000` stands for 65,536.
    private static func extendedLength(_ high: UInt8, _ low: UInt8) -> Int {
        let value = Int(high) << 8 | Int(low)
        return value == 0 ? maximumExpectedLength : value
    }

    /// Which of the four ISO/IEC 7816-4 cases this command is.
    public var isoCase: Case {
        switch (data.isEmpty, expectedLength == nil) {
        case (true, true): .case1
        case (true, false): .case2
        case (false, true): .case3
        case (false, false): .case4
        }
    }

    /// Whether short length fields cannot carry this command: more than 255 data bytes or Le above 256.
    public var needsExtendedLength: Bool {
        data.count > 255 || (expectedLength ?? 0) > 256
    }

    /// The encoded command: short length fields unless ``needsExtendedLength`` or
    /// `forcingExtendedLength` (a case 1 command is the same 4 bytes either way).
    public func encoded(forcingExtendedLength: Bool = false) -> SensitiveBytes {
        var bytes = SensitiveBytes(capacity: 4 + 3 + data.count + 2)
        bytes.append(contentsOf: [cla, ins, p1, p2])
        if forcingExtendedLength || needsExtendedLength {
            if !data.isEmpty {
                bytes.append(contentsOf: [0, UInt8(data.count >> 8), UInt8(truncatingIfNeeded: data.count)])
                bytes.append(contentsOf: data)
            }
            if let expectedLength {
                let field = expectedLength == Self.maximumExpectedLength ? 0 : expectedLength
                if data.isEmpty { bytes.append(0) }
                bytes.append(contentsOf: [UInt8(field >> 8), UInt8(truncatingIfNeeded: field)])
            }
        } else {
            if !data.isEmpty {
                bytes.append(UInt8(data.count))
                bytes.append(contentsOf: data)
            }
            if let expectedLength { bytes.append(UInt8(truncatingIfNeeded: expectedLength)) }
        }
        return bytes
    }
}

extension CommandAPDU: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Header and lengths, e.g. `00 A4 04 00, Lc 14, Le 256`; never the data.
    public var description: String {
        var text = "\(cla.hexByte) \(ins.hexByte) \(p1.hexByte) \(p2.hexByte)"
        if !data.isEmpty { text += ", Lc \(data.count)" }
        if let expectedLength { text += ", Le \(expectedLength)" }
        return text
    }

    /// ``description`` labelled with the type, e.g. `CommandAPDU(00 B2 01 0C, Le 256)`; never the data.
    public var debugDescription: String { "CommandAPDU(\(description))" }

    /// The header, the data as ``SensitiveBytes`` (which reflects its length only) and the
    /// expected length, so that `dump` and debuggers never show the data.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "header": "\(cla.hexByte) \(ins.hexByte) \(p1.hexByte) \(p2.hexByte)",
                "data": data,
                "expectedLength": expectedLength as Any,
            ], displayStyle: .struct)
    }
}
