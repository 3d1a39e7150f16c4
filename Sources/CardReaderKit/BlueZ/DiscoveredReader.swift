package import BLETransport

/// A reader as discovery found it (or as BlueZ already knew it): what to connect to.
public struct DiscoveredReader: Sendable, Hashable, CustomStringConvertible {
    /// BlueZ's record of the device.
    package let device: BluetoothDeviceInfo
    /// The address of the adapter it was seen through, and is reached through.
    public let adapterAddress: String?

    package init(_ device: BluetoothDeviceInfo, adapterAddress: String? = nil) {
        self.device = device
        self.adapterAddress = adapterAddress
    }

    /// The Bluetooth address, `AA:BB:CC:DD:EE:FF`.
    public var address: String { device.address }
    /// The name it advertises, e.g. `VPOS3356-1A2B`, if it advertised one.
    public var name: String? { device.name }
    /// The signal strength of its last advertisement, in dBm, when BlueZ reports one.
    public var rssi: Int? { device.rssi.map(Int.init) }
    /// Whether BlueZ holds a connection to it now.
    public var isConnected: Bool { device.isConnected }
    /// Whether this host keeps a bond with it (BlueZ's `Bonded`): its link encrypts on
    /// every connection without pairing.
    public var isBonded: Bool { device.isBonded }
    /// The name and address, e.g. `VPOS3356-1A2B (AA:BB:CC:DD:EE:FF)`.
    public var summary: String { device.summary }
    /// The same as ``summary``.
    public var description: String { summary }
}
