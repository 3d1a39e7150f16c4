/// A GATT service a ``GattApplication`` serves.
public struct GattServiceDefinition: Sendable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    public var characteristics: [GattCharacteristicDefinition]

    public init(uuid: BluetoothUUID, isPrimary: Bool = true, characteristics: [GattCharacteristicDefinition]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }
}

/// A characteristic a ``GattApplication`` serves, with its handlers. Handlers run one
/// at a time per characteristic, in arrival order.
public struct GattCharacteristicDefinition: Sendable {
    public typealias ReadHandler = @Sendable (GattRequest) async throws(GattRequestError) -> [UInt8]
    public typealias WriteHandler = @Sendable ([UInt8], GattRequest) async throws(GattRequestError) -> Void
    public typealias NotifyHandler = @Sendable (Bool) async -> Void

    public var uuid: BluetoothUUID
    /// BlueZ flag names: `read`, `write`, `write-without-response`, `notify`, `indicate`, …
    public var flags: [String]
    /// The value before any notification; also what `ReadValue` returns without `onRead`.
    public var initialValue: [UInt8]
    public var onRead: ReadHandler?
    public var onWrite: WriteHandler?
    /// Called with true on `StartNotify`, false on `StopNotify`.
    public var onNotifyChange: NotifyHandler?

    public init(
        uuid: BluetoothUUID, flags: [String], initialValue: [UInt8] = [], onRead: ReadHandler? = nil,
        onWrite: WriteHandler? = nil, onNotifyChange: NotifyHandler? = nil
    ) {
        self.uuid = uuid
        self.flags = flags
        self.initialValue = initialValue
        self.onRead = onRead
        self.onWrite = onWrite
        self.onNotifyChange = onNotifyChange
    }
}

/// The options BlueZ passes with `ReadValue`/`WriteValue`.
public struct GattRequest: Sendable, Hashable {
    /// The remote device's object on the serving adapter, e.g. `/org/bluez/hci0/dev_…`.
    public var device: DBusObjectPath?
    /// The negotiated ATT MTU, when BlueZ tells it.
    public var mtu: Int?
    /// `request` or `command` for writes.
    public var writeType: String?
    public var offset: Int
    /// `LE` or `BR/EDR`.
    public var link: String?

    public init(device: DBusObjectPath? = nil, mtu: Int? = nil, writeType: String? = nil, offset: Int = 0, link: String? = nil) {
        self.device = device
        self.mtu = mtu
        self.writeType = writeType
        self.offset = offset
        self.link = link
    }

    /// Parses BlueZ's `a{sv}` options.
    public init(options: [String: DBusValue]) {
        device = options["device"]?.objectPathValue
        mtu = options["mtu"]?.intValue
        writeType = options["type"]?.stringValue
        offset = options["offset"]?.intValue ?? 0
        link = options["link"]?.stringValue
    }
}

/// How a GATT handler refuses a request; BlueZ turns it into an ATT error.
public struct GattRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `org.bluez.Error.*`.
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// `org.bluez.Error.Failed` (an ATT "unlikely error").
    public static func failed(_ message: String) -> GattRequestError {
        GattRequestError(name: BluetoothError.Code.bluezFailed.rawValue, message: message)
    }
    /// `org.bluez.Error.NotPermitted` (ATT "write/read not permitted").
    public static func notPermitted(_ message: String) -> GattRequestError {
        GattRequestError(name: BluetoothError.Code.notPermitted.rawValue, message: message)
    }
    /// `org.bluez.Error.NotSupported` (ATT "request not supported").
    public static func notSupported(_ message: String) -> GattRequestError {
        GattRequestError(name: BluetoothError.Code.notSupported.rawValue, message: message)
    }

    public var description: String { "\(name): \(message)" }
}
