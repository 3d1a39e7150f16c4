/// A characteristic bound for use on a ``GattConnection``.
public struct GattCharacteristic: Sendable, Hashable {
    public let path: DBusObjectPath
    public let uuid: BluetoothUUID
    public let serviceUUID: BluetoothUUID
    /// BlueZ's flag names.
    public let flags: Set<String>
    /// The ATT MTU BlueZ reported when the characteristic was bound.
    public let mtu: Int?
    /// Which sockets bluetoothd offers for it (`AcquireNotify`, `AcquireWrite`).
    public let acquirable: GattCharacteristicInfo.Acquirable

    public init(_ info: GattCharacteristicInfo, serviceUUID: BluetoothUUID) {
        path = info.path
        uuid = info.uuid
        self.serviceUUID = serviceUUID
        flags = Set(info.flags)
        mtu = info.mtu
        acquirable = info.acquirable
    }

    public var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }

    /// `request` when the characteristic takes writes with response, else `command`
    /// when it takes writes without response, else nil.
    public var defaultWriteType: GattWriteType? {
        if canWrite(.request) { return .request }
        if canWrite(.command) { return .command }
        return nil
    }

    /// Whether the characteristic takes writes of this type (its `write` or
    /// `write-without-response` flag).
    public func canWrite(_ type: GattWriteType) -> Bool {
        switch type {
        case .request: flags.contains("write")
        case .command: flags.contains("write-without-response")
        }
    }
}

/// The `type` option of `GattCharacteristic1.WriteValue`: which ATT write carries a value.
public enum GattWriteType: String, Sendable, Hashable, CustomStringConvertible {
    /// Write Request (with response): BlueZ returns when the peer acknowledged it. Values
    /// written one after another's acknowledgement reach the peer in order on any link.
    case request
    /// Write Command (without response): BlueZ returns when the write is queued. Over
    /// several ATT bearers (Enhanced ATT) the peer may receive commands out of order.
    case command

    public var description: String { rawValue }
}

/// The ATT payload limits of writes and notifications.
public enum GattPayload {
    /// The ATT MTU when BlueZ does not report one.
    public static let defaultMTU = 23

    /// The largest value one write or notification carries at `mtu`: MTU − 3, at least 20.
    public static func maximumLength(mtu: Int?) -> Int {
        max(defaultMTU, mtu ?? defaultMTU) - 3
    }
}
