/// The devices a discovery saw advertising, for messages: a bounded list (the first
/// ``limit`` by address, each as it was last seen) and how many there were in all.
public struct SeenDevices: Sendable, Hashable, CustomStringConvertible {
    /// How many devices the list keeps.
    public static let limit = 8

    /// The first devices seen (at most ``limit``), in the order first seen.
    public private(set) var devices: [BluetoothDeviceInfo] = []
    /// How many different devices were seen.
    public private(set) var count = 0
    private var addresses: Set<String> = []

    /// An empty list.
    public init() {}

    /// Notes a device (a later report of the same address updates it).
    public mutating func note(_ device: BluetoothDeviceInfo) {
        if let index = devices.firstIndex(where: { $0.address == device.address }) {
            devices[index] = device
        } else if addresses.insert(device.address).inserted {
            count += 1
            if devices.count < Self.limit { devices.append(device) }
        }
    }

    /// E.g. `Pixel 7 (AA:BB:CC:DD:EE:FF) RSSI -60, 11:22:33:44:55:66 RSSI -81 and 3 more`, or
    /// `none`.
    public var description: String {
        guard count > 0 else { return "none" }
        let listed = devices.map { device in device.summary + (device.rssi.map { " RSSI \($0)" } ?? "") }
        let more = count - devices.count
        return listed.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
    }
}
