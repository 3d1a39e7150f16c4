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

/// The ATT payload limits of writes and notifications.
public enum GattPayload {
    /// The ATT MTU when BlueZ does not report one.
    public static let defaultMTU = 23

    /// The largest value one write or notification carries at `mtu`: MTU − 3, at least 20.
    public static func maximumLength(mtu: Int?) -> Int {
        max(defaultMTU, mtu ?? defaultMTU) - 3
    }
}
