/// The MAIN and SUB bytes that identify a command, its response, or an event.
public struct CommandCode: Sendable, Hashable, CustomStringConvertible {
    public var main: UInt8
    public var sub: UInt8

    public init(main: UInt8, sub: UInt8) {
        self.main = main
        self.sub = sub
    }

    /// `C1 07`.
    public var description: String { "\(main.hexByte) \(sub.hexByte)" }
}

/// One frame: `STX | MAIN | SUB | LEN (2, BE) | DATA | CRC (2)`.
///
/// DATA can hold card data (tracks, APDUs), so a frame prints only its code and length.
public struct Frame: Sendable, Hashable {
    public var code: CommandCode
    public var data: [UInt8]

    public init(code: CommandCode, data: [UInt8] = []) {
        self.code = code
        self.data = data
    }

    public init(main: UInt8, sub: UInt8, data: [UInt8] = []) {
        self.init(code: CommandCode(main: main, sub: sub), data: data)
    }

    /// The frame's bytes under `profile`, or ``FrameEncodingError/dataTooLong(length:maximum:)``.
    public func encoded(profile: FrameProfile = .vpos3356) throws(FrameEncodingError) -> [UInt8] {
        guard data.count <= profile.maximumDataLength, data.count <= Int(UInt16.max) else {
            throw .dataTooLong(length: data.count, maximum: profile.maximumDataLength)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + FrameProfile.overhead)
        bytes.append(profile.startByte)
        bytes.append(code.main)
        bytes.append(code.sub)
        bytes.append(UInt8(truncatingIfNeeded: data.count >> 8))
        bytes.append(UInt8(truncatingIfNeeded: data.count))
        bytes.append(contentsOf: data)
        let crc = CRC16(profile.checksum)
        let checksum = bytes.withUnsafeBufferPointer { crc.checksum(UnsafeBufferPointer(rebasing: $0[1...])) }
        let (first, second) = checksum.bytes(profile.checksumByteOrder)
        bytes.append(first)
        bytes.append(second)
        return bytes
    }
}

extension Frame: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "Frame(\(code), \(data.count) data bytes)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["code": code, "dataLength": data.count], displayStyle: .struct)
    }
}

/// Why a frame could not be encoded.
public enum FrameEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// DATA is longer than the profile allows.
    case dataTooLong(length: Int, maximum: Int)

    public var description: String {
        switch self {
        case .dataTooLong(let length, let maximum):
            "frame DATA of \(length) bytes exceeds the reader's maximum of \(maximum)"
        }
    }
}

extension UInt16 {
    /// The two bytes in wire order.
    func bytes(_ order: FrameProfile.ChecksumByteOrder) -> (UInt8, UInt8) {
        let high = UInt8(truncatingIfNeeded: self >> 8)
        let low = UInt8(truncatingIfNeeded: self)
        return order == .bigEndian ? (high, low) : (low, high)
    }

    init(_ first: UInt8, _ second: UInt8, order: FrameProfile.ChecksumByteOrder) {
        self = order == .bigEndian ? UInt16(first) << 8 | UInt16(second) : UInt16(second) << 8 | UInt16(first)
    }
}
