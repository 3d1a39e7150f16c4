/// What arrives from a characteristic's notifications, in order: each value as it arrived,
/// then, if the connection went down on its own, one ``dropped(_:)``.
public enum GattInbound: Sendable, Hashable {
    /// One notification (one ATT Handle Value Notification's value).
    case notification([UInt8])
    /// The connection went down on its own.
    case dropped(BluetoothLinkLoss)
}
