/// A characteristic bound for use on a ``GattConnection``.
public struct GattCharacteristic: Sendable, Hashable {
    public let path: DBusObjectPath
    public let uuid: BluetoothUUID
    public let serviceUUID: BluetoothUUID
    /// BlueZ's flag names.
    public let flags: Set<String>
    /// The ATT MTU BlueZ reported when the characteristic was bound.
    public let mtu: Int?

    public init(_ info: GattCharacteristicInfo, serviceUUID: BluetoothUUID) {
        path = info.path
        uuid = info.uuid
        self.serviceUUID = serviceUUID
        flags = Set(info.flags)
        mtu = info.mtu
    }

    public var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }

    /// `request` when the characteristic takes writes with response, else `command`
    /// when it takes writes without response, else nil.
    public var defaultWriteType: GattWriteType? {
        if flags.contains("write") { return .request }
        if flags.contains("write-without-response") { return .command }
        return nil
    }
}

/// The `type` option of `GattCharacteristic1.WriteValue`.
public enum GattWriteType: String, Sendable, Hashable {
    /// Write with response: BlueZ returns when the peripheral acknowledged it.
    case request
    /// Write without response: BlueZ returns when the write is queued.
    case command
}

/// Splitting writes into ATT-sized pieces.
public enum GattWriteChunking {
    /// The ATT MTU when BlueZ does not report one.
    public static let defaultMTU = 23

    /// The largest value one write carries at `mtu`: MTU − 3, at least 20.
    public static func payloadLength(mtu: Int?) -> Int {
        max(defaultMTU, mtu ?? defaultMTU) - 3
    }

    /// `bytes` in pieces of at most `length` bytes (one empty piece for empty input).
    public static func chunks(_ bytes: [UInt8], length: Int) -> [[UInt8]] {
        guard !bytes.isEmpty, length > 0 else { return [bytes] }
        return stride(from: 0, to: bytes.count, by: length).map {
            Array(bytes[$0..<min($0 + length, bytes.count)])
        }
    }
}
