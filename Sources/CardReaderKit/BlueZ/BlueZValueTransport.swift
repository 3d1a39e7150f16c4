package import BLETransport

/// How the reader's notifications travel from bluetoothd to this process.
public enum BlueZValueTransport: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A socket from `AcquireNotify`: one datagram per notification, read without a D-Bus
    /// message each. Where bluetoothd does not offer it, D-Bus messages instead.
    case acquiredSocket = "acquired-socket"
    /// A D-Bus `PropertiesChanged(Value)` signal per notification, after `StartNotify`.
    case dbusMessages = "dbus-messages"

    /// `acquired-socket` or `dbus-messages`.
    public var description: String { rawValue }

    /// The BlueZ layer's name for it.
    package var gatt: GattValueTransport {
        switch self {
        case .acquiredSocket: .acquiredSocket
        case .dbusMessages: .dbusMessages
        }
    }
}
