package import BLETransport

/// What BlueZ knows of readers, asked without connecting to any or sending one a command:
/// for a status of a reader another process holds.
public enum BlueZReaderDirectory {
    /// One device BlueZ knows.
    public struct Entry: Sendable, Hashable {
        /// Its advertised name, or its address when it has none.
        public var name: String
        /// Its Bluetooth address.
        public var address: String
        /// Whether BlueZ holds a connection to it (this process's or another's).
        public var isConnected: Bool
        /// Whether it is paired with this host.
        public var isPaired: Bool
        /// The signal strength last seen, in dBm.
        public var rssi: Int16?
        /// The Battery service's level (`org.bluez.Battery1`), when BlueZ has one.
        public var batteryPercent: UInt8?

        package init(_ device: BluetoothDeviceInfo) {
            name = device.displayName
            address = device.address
            isConnected = device.isConnected
            isPaired = device.isPaired
            rssi = device.rssi
            batteryPercent = device.batteryPercent
        }
    }

    /// The devices BlueZ knows on `adapter` (nil: the first powered one) whose name starts
    /// with `reader`, or whose address is `reader`.
    public static func known(_ reader: String, adapter: String? = nil, busAddress: String? = nil) async throws(LinkError)
        -> [Entry]
    {
        let session: BluetoothSession
        do throws(BluetoothError) {
            session = try await BluetoothSession.open(busAddress: busAddress)
        } catch {
            throw LinkError(error)
        }
        do throws(BluetoothError) {
            let filter = DiscoveryFilter(nameOrAddress: reader)
            let devices = try await session.adapter(named: adapter).knownDevices().filter(filter.matches)
            await session.close()
            return devices.map(Entry.init)
        } catch {
            await session.close()
            throw LinkError(error)
        }
    }
}
