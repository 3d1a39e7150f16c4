/// What BlueZ knows about a remote device (its `org.bluez.Device1` properties).
public struct BluetoothDeviceInfo: Sendable, Hashable {
    /// The device object, e.g. `/org/bluez/hci1/dev_00_AA_01_00_00_23`.
    public var path: DBusObjectPath
    /// The adapter object the device belongs to, e.g. `/org/bluez/hci1`.
    public var adapterPath: DBusObjectPath?
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// `public` or `random`.
    public var addressType: String?
    /// The advertised local name, if any was seen.
    public var name: String?
    /// BlueZ's alias: the name, a user-set alias, or the address with dashes.
    public var alias: String?
    /// Signal strength of the last advertisement seen in the current discovery; nil when
    /// the device was not seen in it (a cached device).
    public var rssi: Int16?
    /// Service UUIDs advertised (or resolved after connecting).
    public var serviceUUIDs: [BluetoothUUID]
    public var isConnected: Bool
    public var servicesResolved: Bool
    /// Whether the two sides have paired (keys exchanged), bond or not.
    public var isPaired: Bool
    /// Whether this host keeps the pairing's keys (a bond), so the link encrypts again on
    /// every connection without pairing.
    public var isBonded: Bool
    /// Whether BlueZ trusts the device (lets it connect and use services without asking).
    public var isTrusted: Bool
    /// The Battery service's level, as bluetoothd's battery plugin reads it
    /// (`org.bluez.Battery1`), when the device has the service and BlueZ said so.
    public var batteryPercent: UInt8?

    /// Parses `Device1` properties; nil without an `Address`.
    public init?(path: DBusObjectPath, properties: [String: DBusValue]) {
        guard let address = properties["Address"]?.stringValue else { return nil }
        self.path = path
        self.address = address
        adapterPath = properties["Adapter"]?.objectPathValue
        addressType = properties["AddressType"]?.stringValue
        name = properties["Name"]?.stringValue
        alias = properties["Alias"]?.stringValue
        rssi = properties["RSSI"]?.int16Value
        serviceUUIDs = (properties["UUIDs"]?.stringArrayValue ?? []).compactMap { BluetoothUUID(parsing: $0) }
        isConnected = properties["Connected"]?.boolValue ?? false
        servicesResolved = properties["ServicesResolved"]?.boolValue ?? false
        isPaired = properties["Paired"]?.boolValue ?? false
        isBonded = properties["Bonded"]?.boolValue ?? false
        isTrusted = properties["Trusted"]?.boolValue ?? false
    }

    /// Applies a `PropertiesChanged` of `Device1`.
    public mutating func apply(changed: [String: DBusValue], invalidated: [String]) {
        for (key, value) in changed {
            switch key {
            case "Name": name = value.stringValue
            case "Alias": alias = value.stringValue
            case "RSSI": rssi = value.int16Value
            case "UUIDs": serviceUUIDs = (value.stringArrayValue ?? []).compactMap { BluetoothUUID(parsing: $0) }
            case "Connected": isConnected = value.boolValue ?? false
            case "ServicesResolved": servicesResolved = value.boolValue ?? false
            case "AddressType": addressType = value.stringValue
            case "Paired": isPaired = value.boolValue ?? false
            case "Bonded": isBonded = value.boolValue ?? false
            case "Trusted": isTrusted = value.boolValue ?? false
            default: break
            }
        }
        for key in invalidated {
            switch key {
            case "Name": name = nil
            case "RSSI": rssi = nil
            default: break
            }
        }
    }

    /// The name to show: the advertised name, else the alias, else the address.
    public var displayName: String { name ?? alias ?? address }

    /// E.g. `VPOS3356-1A2B (00:AA:01:00:00:23)`.
    public var summary: String { name.map { "\($0) (\(address))" } ?? address }
}

/// Which devices a discovery reports.
///
/// Readers often do not advertise their service UUID, so the UUIDs are matched locally
/// (never passed to BlueZ's filter, which would hide such readers): a device matches when
/// it matches ANY given criterion; a filter without criteria matches every device.
public struct DiscoveryFilter: Sendable, Hashable {
    /// Matches when the device's name (or alias) starts with this, case-sensitively.
    public var namePrefix: String?
    /// Matches when the device advertises one of these services.
    public var serviceUUIDs: [BluetoothUUID]
    /// Matches this address (case-insensitive).
    public var address: String?

    public init(namePrefix: String? = nil, serviceUUIDs: [BluetoothUUID] = [], address: String? = nil) {
        self.namePrefix = namePrefix
        self.serviceUUIDs = serviceUUIDs
        self.address = address
    }

    /// Matches one device, named by a name prefix (`VPOS3356-1A2B`, `VPOS`) or an address
    /// (`AA:BB:CC:DD:EE:FF`).
    public init(nameOrAddress text: String) {
        self = Self.isAddress(text) ? DiscoveryFilter(address: text) : DiscoveryFilter(namePrefix: text)
    }

    /// Whether `device` matches.
    public func matches(_ device: BluetoothDeviceInfo) -> Bool {
        if namePrefix == nil && serviceUUIDs.isEmpty && address == nil { return true }
        if let namePrefix, let name = device.name ?? device.alias, name.hasPrefix(namePrefix) { return true }
        if !serviceUUIDs.isEmpty, device.serviceUUIDs.contains(where: serviceUUIDs.contains) { return true }
        if let address, address.uppercased() == device.address.uppercased() { return true }
        return false
    }

    /// What the filter looks for, for messages: `name VPOS*`, `address AA:…`.
    public var summary: String {
        var parts: [String] = []
        if let namePrefix { parts.append("name \(namePrefix)*") }
        if !serviceUUIDs.isEmpty { parts.append("service \(serviceUUIDs.map(\.description).joined(separator: "|"))") }
        if let address { parts.append("address \(address)") }
        return parts.isEmpty ? "any device" : parts.joined(separator: " or ")
    }

    /// Whether `text` is a Bluetooth address (`AA:BB:CC:DD:EE:FF`).
    public static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
