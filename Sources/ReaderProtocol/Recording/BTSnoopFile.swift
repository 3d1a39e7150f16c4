/// The records of a btsnoop capture (the format `btmon -w` and Android's HCI snoop log
/// write): HCI packets with their direction, controller and time.
///
/// Supported link types: 2001 (Linux monitor, as btmon writes), 1002 (HCI UART, H4) and
/// 1001 (unencapsulated HCI).
public struct BTSnoopFile: Sendable {
    /// One HCI packet.
    public struct Record: Sendable, Hashable {
        /// What an HCI packet is.
        public enum Kind: Sendable, Hashable {
            /// An HCI command, an HCI event, ACL data sent to or received from the
            /// controller (where ATT writes and notifications travel), or anything else.
            case command, event, aclSent, aclReceived, other
        }

        /// 1-based position in the file.
        public var number: Int
        /// Microseconds since 0000-01-01 (btsnoop's epoch).
        public var timestamp: Int64
        /// The controller (`hci0` is 0); always 0 outside the monitor format.
        public var controller: Int
        /// What the packet is, from the record's flags (or, in H4 captures, its type byte).
        public var kind: Kind
        /// The packet, without an H4 type byte.
        public var bytes: [UInt8]
    }

    /// The 8 bytes every btsnoop file starts with: `btsnoop` and a NUL.
    public static let signature: [UInt8] = Array("btsnoop".utf8) + [0]

    /// The datalink type from the file header: 1001, 1002 or 2001.
    public let linkType: UInt32
    /// Every packet, in file order.
    public let records: [Record]

    /// Whether `bytes` start like a btsnoop file.
    public static func isBTSnoop(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }

    /// Reads a whole capture, or throws when it is not a version 1 btsnoop file of a
    /// supported link type or a record is cut short.
    public init(bytes: [UInt8]) throws(BTSnoopError) {
        guard bytes.count >= 16, Self.isBTSnoop(bytes) else { throw .notBTSnoop }
        var reader = ByteReader(bytes: bytes, offset: 8)
        let version = reader.uint32()
        guard version == 1 else { throw .unsupportedVersion(version) }
        linkType = reader.uint32()
        guard [1001, 1002, 2001].contains(linkType) else { throw .unsupportedLinkType(linkType) }
        var records: [Record] = []
        while !reader.isAtEnd {
            let number = records.count + 1
            guard reader.remaining >= 24 else { throw .truncatedRecord(number) }
            _ = reader.uint32()  // original length
            let included = Int(reader.uint32())
            let flags = reader.uint32()
            _ = reader.uint32()  // cumulative drops
            let timestamp = Int64(bitPattern: UInt64(reader.uint32()) << 32 | UInt64(reader.uint32()))
            guard reader.remaining >= included else { throw .truncatedRecord(number) }
            let data = reader.bytes(included)
            records.append(Self.record(number: number, timestamp: timestamp, flags: flags, data: data, linkType: linkType))
        }
        self.records = records
    }

    private static func record(number: Int, timestamp: Int64, flags: UInt32, data: [UInt8], linkType: UInt32) -> Record {
        var record = Record(number: number, timestamp: timestamp, controller: 0, kind: .other, bytes: data)
        switch linkType {
        case 2001:
            // flags: controller index << 16 | monitor opcode (BlueZ src/shared/btsnoop.h).
            record.controller = Int(flags >> 16)
            record.kind =
                switch flags & 0xFFFF {
                case 2: .command
                case 3: .event
                case 4: .aclSent
                case 5: .aclReceived
                default: .other
                }
        case 1002:
            // H4: a packet-type byte first; flags bit 0 set when received from the controller.
            let received = flags & 1 == 1
            record.bytes = Array(data.dropFirst())
            record.kind =
                switch data.first {
                case 0x01: .command
                case 0x04: .event
                case 0x02: received ? .aclReceived : .aclSent
                default: .other
                }
        default:
            // Unencapsulated: bit 0 received, bit 1 command/event rather than data.
            let received = flags & 1 == 1
            record.kind = flags & 2 != 0 ? (received ? .event : .command) : (received ? .aclReceived : .aclSent)
        }
        return record
    }
}

/// Why a capture could not be read.
public struct BTSnoopError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What is wrong with the capture, and for an undiscovered reader what to do about it.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// The bytes do not start with the btsnoop signature.
    public static let notBTSnoop = Self(.notBTSnoop)

    /// The header's version is not 1; carries the version found.
    public static func unsupportedVersion(_ version: UInt32) -> Self {
        Self(.unsupportedVersion(version))
    }

    /// The header's datalink type is none of 1001, 1002, 2001; carries the type found.
    public static func unsupportedLinkType(_ linkType: UInt32) -> Self {
        Self(.unsupportedLinkType(linkType))
    }

    /// The file ends inside the record with this 1-based number.
    public static func truncatedRecord(_ record: Int) -> Self {
        Self(.truncatedRecord(record))
    }

    /// The capture has no discovery of the reader's TX and RX characteristics, so its
    /// writes and notifications cannot be attributed.
    public static let readerCharacteristicsNotDiscovered = Self(.readerCharacteristicsNotDiscovered)

    /// What is wrong, as a stable identifier (`not-btsnoop`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The bytes do not start with the btsnoop signature.
        public static let notBTSnoop = Self(rawValue: "not-btsnoop")

        /// The header's version is not 1; carries the version found.
        public static let unsupportedVersion = Self(rawValue: "unsupported-version")

        /// The header's datalink type is none of 1001, 1002, 2001; carries the type found.
        public static let unsupportedLinkType = Self(rawValue: "unsupported-link-type")

        /// The file ends inside the record with this 1-based number.
        public static let truncatedRecord = Self(rawValue: "truncated-record")

        /// The capture has no discovery of the reader's TX and RX characteristics, so its
        /// writes and notifications cannot be attributed.
        public static let readerCharacteristicsNotDiscovered = Self(rawValue: "reader-characteristics-not-discovered")
    }

    enum Storage: Sendable, Hashable {
        case notBTSnoop
        case unsupportedVersion(UInt32)
        case unsupportedLinkType(UInt32)
        case truncatedRecord(Int)
        case readerCharacteristicsNotDiscovered

        var code: Code {
            switch self {
            case .notBTSnoop: .notBTSnoop
            case .unsupportedVersion: .unsupportedVersion
            case .unsupportedLinkType: .unsupportedLinkType
            case .truncatedRecord: .truncatedRecord
            case .readerCharacteristicsNotDiscovered: .readerCharacteristicsNotDiscovered
            }
        }

        var description: String {
            switch self {
            case .notBTSnoop: "not a btsnoop capture (no 'btsnoop' signature)"
            case .unsupportedVersion(let version): "btsnoop version \(version) is not supported (only 1)"
            case .unsupportedLinkType(let type): "btsnoop link type \(type) is not supported (1001, 1002, 2001)"
            case .truncatedRecord(let number): "record \(number) is cut short"
            case .readerCharacteristicsNotDiscovered:
                "the capture holds no GATT discovery of the reader's TX and RX characteristics (was the GATT database cached? remove the device in BlueZ and capture a fresh connection)"
            }
        }
    }
}

/// Big-endian reads over a byte array, for btsnoop headers.
private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset >= bytes.count }

    mutating func uint32() -> UInt32 {
        defer { offset += 4 }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}
