/// The MAIN and SUB bytes that identify a command, its response, or an event.
public struct CommandCode: Sendable, Hashable, CustomStringConvertible {
    /// The MAIN byte: the command group, e.g. `C2` for the chip card, `E0` for events.
    public var main: UInt8
    /// The SUB byte: the command within its group, e.g. `02` for ICC APDU.
    public var sub: UInt8

    /// The code with these MAIN and SUB bytes, e.g. `CommandCode(main: 0xC1, sub: 0x07)`.
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
    /// MAIN and SUB: which command, response or event the frame carries.
    public var code: CommandCode
    /// DATA: at most 1024 bytes under the VPOS3356 profile; a response's starts with its status byte.
    public var data: [UInt8]

    /// A frame carrying `data` under `code`.
    public init(code: CommandCode, data: [UInt8] = []) {
        self.code = code
        self.data = data
    }

    /// A frame carrying `data` under the code MAIN `main`, SUB `sub`.
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
    /// The code and DATA's length, e.g. `Frame(C1 07, 94 data bytes)`; never the data.
    public var description: String { "Frame(\(code), \(data.count) data bytes)" }
    /// The same as ``description``: the code and DATA's length, never the data.
    public var debugDescription: String { description }
    /// The code and DATA's length, so that `dump` and debuggers never show the data.
    public var customMirror: Mirror {
        Mirror(self, children: ["code": code, "dataLength": data.count], displayStyle: .struct)
    }
}

/// Why a frame could not be encoded.
public struct FrameEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// DATA's length and the profile's maximum, e.g. `frame DATA of 2000 bytes exceeds the reader's maximum of 1024`.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// DATA is longer than the profile allows.
    public static func dataTooLong(length: Int, maximum: Int) -> Self {
        Self(.dataTooLong(length: length, maximum: maximum))
    }

    /// What is wrong, as a stable identifier (`data-too-long`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// DATA is longer than the profile allows.
        public static let dataTooLong = Self(rawValue: "data-too-long")
    }

    enum Storage: Sendable, Hashable {
        case dataTooLong(length: Int, maximum: Int)

        var code: Code {
            switch self {
            case .dataTooLong: .dataTooLong
            }
        }

        var description: String {
            switch self {
            case .dataTooLong(let length, let maximum):
                "frame DATA of \(length) bytes exceeds the reader's maximum of \(maximum)"
            }
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
