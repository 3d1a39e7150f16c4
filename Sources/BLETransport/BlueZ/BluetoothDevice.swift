/// A remote device known to BlueZ (`org.bluez.Device1`).
public struct BluetoothDevice: Sendable {
    public let session: BluetoothSession
    /// `/org/bluez/hci1/dev_AA_BB_CC_DD_EE_FF`.
    public let path: DBusObjectPath

    public init(session: BluetoothSession, path: DBusObjectPath) {
        self.session = session
        self.path = path
    }

    /// The device's current properties, asked for within `timeout`.
    public func info(timeout: Duration = .seconds(10)) async throws(BluetoothError) -> BluetoothDeviceInfo {
        let properties: [String: DBusValue]
        do throws(DBusError) {
            properties = try await session.connection.getAllProperties(
                interface: BlueZNames.deviceInterface, destination: BlueZNames.service, path: path, timeout: timeout)
        } catch {
            throw BluetoothError(error, operation: "reading \(path)")
        }
        guard let info = BluetoothDeviceInfo(path: path, properties: properties) else {
            throw .unexpectedReply("\(path) has no Address")
        }
        return info
    }

    /// Connects (`Device1.Connect`) and waits until BlueZ has resolved the services,
    /// within `timeout`. A device that is already connected is used as it is.
    /// `le-connection-abort-by-local` and `InProgress` are retried, up to `attempts`
    /// connection attempts in all. With more than one attempt, a bonded device's connection
    /// whose services have not resolved within `resolutionWindow` (default: 4 s, half of
    /// `timeout` at most) is disconnected and made again, as long as the time left holds
    /// two windows; the last connection has all the time left.
    public func connect(timeout: Duration, attempts: Int = 3, resolutionWindow: Duration? = nil)
        async throws(BluetoothError) -> GattConnection
    {
        try await GattConnection.open(
            self, timeout: timeout, attempts: attempts,
            resolutionWindow: resolutionWindow ?? GattConnection.resolutionWindow(timeout: timeout))
    }
}
