package import BLETransport

/// A connected reader's Battery-service level, as bluetoothd keeps it: its battery plugin
/// claims the Battery service (`180F`), subscribes to `2A19` by itself and shows the level
/// as `org.bluez.Battery1.Percentage`. Reading that property, rather than `2A19` through
/// GATT, costs the reader no second subscription and works the same on every BlueZ that
/// has the plugin (5.48 on), which is every distribution's build.
package struct BlueZBatteryLevels: Sendable {
    /// The level when the link opened (if BlueZ had one), then each change.
    package let levels: AsyncStream<UInt8>
    private let follower: Task<Void, Never>
    private let continuation: AsyncStream<UInt8>.Continuation

    /// Follows the level of the device at `path`: subscribes first, then reads the level
    /// now, so no change is missed. Nil when the bus refuses the subscription.
    package static func follow(device path: DBusObjectPath, on connection: DBusConnection) async -> BlueZBatteryLevels? {
        guard
            let changes = try? await connection.signals(
                matching: .propertiesChanged(sender: BlueZNames.service, path: path, interface: BlueZNames.batteryInterface))
        else { return nil }
        let (levels, continuation) = AsyncStream.makeStream(of: UInt8.self, bufferingPolicy: .bufferingNewest(8))
        let device = DBusRemoteObject(connection: connection, destination: BlueZNames.service, path: path)
        // A reader without the Battery service (or a BlueZ without the plugin) has no
        // Battery1: the levels then come only as the plugin adds one.
        if let now = try? await device.property("Percentage", interface: BlueZNames.batteryInterface).byteValue {
            continuation.yield(now)
        }
        let follower = Task {
            for await message in changes {
                if let percent = DBusPropertiesChanged(message)?.changed["Percentage"]?.byteValue { continuation.yield(percent) }
            }
            continuation.finish()
        }
        return BlueZBatteryLevels(levels: levels, follower: follower, continuation: continuation)
    }

    /// Stops following; ``levels`` finishes.
    package func stop() {
        follower.cancel()
        continuation.finish()
    }
}
