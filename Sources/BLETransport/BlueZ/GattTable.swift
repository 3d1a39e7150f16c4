/// Every service, characteristic and descriptor BlueZ resolved on a connected device
/// (what `readerctl gatt` prints).
public struct GattTable: Sendable, Hashable {
    public var services: [GattServiceInfo]

    public init(services: [GattServiceInfo]) {
        self.services = services
    }

    /// Builds the table of the device at `devicePath` from `GetManagedObjects` output,
    /// ordered by object path (BlueZ's paths follow the attribute handles). No values.
    public init(objects: [DBusObjectPath: [String: [String: DBusValue]]], devicePath: DBusObjectPath) {
        var services: [DBusObjectPath: GattServiceInfo] = [:]
        var characteristics: [DBusObjectPath: GattCharacteristicInfo] = [:]
        var descriptors: [(parent: DBusObjectPath, GattDescriptorInfo)] = []
        for (path, interfaces) in objects where devicePath.isAncestor(of: path) {
            if let p = interfaces[BlueZNames.gattServiceInterface], let uuid = Self.uuid(p) {
                services[path] = GattServiceInfo(
                    path: path, uuid: uuid, isPrimary: p["Primary"]?.boolValue ?? true, characteristics: [])
            }
            if let p = interfaces[BlueZNames.gattCharacteristicInterface],
                let uuid = Self.uuid(p), let service = p["Service"]?.objectPathValue
            {
                characteristics[path] = GattCharacteristicInfo(
                    path: path, servicePath: service, uuid: uuid, flags: p["Flags"]?.stringArrayValue ?? [],
                    mtu: p["MTU"]?.intValue, value: nil, descriptors: [],
                    acquirable: GattCharacteristicInfo.Acquirable(
                        notify: p["NotifyAcquired"] != nil, write: p["WriteAcquired"] != nil))
            }
            if let p = interfaces[BlueZNames.gattDescriptorInterface],
                let uuid = Self.uuid(p),
                let characteristic = p["Characteristic"]?.objectPathValue
            {
                descriptors.append(
                    (characteristic, GattDescriptorInfo(path: path, uuid: uuid, flags: p["Flags"]?.stringArrayValue ?? [], value: nil)))
            }
        }
        for (parent, descriptor) in descriptors.sorted(by: { $0.1.path < $1.1.path }) {
            characteristics[parent]?.descriptors.append(descriptor)
        }
        for characteristic in characteristics.values.sorted(by: { $0.path < $1.path }) {
            services[characteristic.servicePath]?.characteristics.append(characteristic)
        }
        self.services = services.values.sorted { $0.path < $1.path }
    }

    private static func uuid(_ properties: [String: DBusValue]) -> BluetoothUUID? {
        properties["UUID"]?.stringValue.flatMap { BluetoothUUID(parsing: $0) }
    }

    /// The first service with `uuid`.
    public func service(_ uuid: BluetoothUUID) -> GattServiceInfo? {
        services.first { $0.uuid == uuid }
    }

    /// The first characteristic `uuid` in any service `service` (a device can have a
    /// service twice, e.g. bluetoothd's own Device Information next to an application's).
    public func characteristic(_ uuid: BluetoothUUID, inService service: BluetoothUUID) -> GattCharacteristicInfo? {
        services.lazy.filter { $0.uuid == service }.compactMap { $0.characteristic(uuid) }.first
    }
}

/// One GATT service of a remote device.
public struct GattServiceInfo: Sendable, Hashable {
    public var path: DBusObjectPath
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    public var characteristics: [GattCharacteristicInfo]

    /// The first characteristic with `uuid`.
    public func characteristic(_ uuid: BluetoothUUID) -> GattCharacteristicInfo? {
        characteristics.first { $0.uuid == uuid }
    }
}

/// One characteristic of a remote device, with its value when it was read.
public struct GattCharacteristicInfo: Sendable, Hashable {
    public var path: DBusObjectPath
    public var servicePath: DBusObjectPath
    public var uuid: BluetoothUUID
    /// BlueZ's flag names: `read`, `write`, `write-without-response`, `notify`, …
    public var flags: [String]
    /// The negotiated ATT MTU BlueZ reports (BlueZ ≥ 5.62).
    public var mtu: Int?
    public var value: [UInt8]?
    public var descriptors: [GattDescriptorInfo]
    /// Which sockets bluetoothd offers for the characteristic.
    public var acquirable: Acquirable

    /// Whether bluetoothd offers `AcquireNotify` and `AcquireWrite`: it shows the
    /// `NotifyAcquired` and `WriteAcquired` properties only where it does (for a notifying
    /// characteristic and one that takes writes without response).
    public struct Acquirable: Sendable, Hashable {
        public var notify: Bool
        public var write: Bool

        public init(notify: Bool = false, write: Bool = false) {
            self.notify = notify
            self.write = write
        }
    }

    public init(
        path: DBusObjectPath, servicePath: DBusObjectPath, uuid: BluetoothUUID, flags: [String], mtu: Int? = nil,
        value: [UInt8]? = nil, descriptors: [GattDescriptorInfo] = [], acquirable: Acquirable = Acquirable()
    ) {
        self.acquirable = acquirable
        self.path = path
        self.servicePath = servicePath
        self.uuid = uuid
        self.flags = flags
        self.mtu = mtu
        self.value = value
        self.descriptors = descriptors
    }
}

/// One descriptor of a remote characteristic.
public struct GattDescriptorInfo: Sendable, Hashable {
    public var path: DBusObjectPath
    public var uuid: BluetoothUUID
    public var flags: [String]
    public var value: [UInt8]?
}
