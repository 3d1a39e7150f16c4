#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a characteristic's values travel between bluetoothd and this process.
public enum GattValueTransport: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A socket from `AcquireNotify` / `AcquireWrite`: one datagram per value, read and
    /// written without a D-Bus message each. Writes over it are Write Commands (without
    /// response), so a writer uses it only for commands.
    case acquiredSocket = "acquired-socket"
    /// D-Bus messages: a `PropertiesChanged(Value)` signal per notification after
    /// `StartNotify`, a `WriteValue` call per write.
    case dbusMessages = "dbus-messages"

    public var description: String { rawValue }
}

/// A characteristic's notifications (see ``GattConnection/notifications(of:preferring:)``).
public struct GattNotifications: Sendable {
    /// Each notification in order, then ``GattInbound/dropped(_:)`` if the link is lost.
    /// It finishes when the connection ends.
    public let values: AsyncStream<GattInbound>
    /// How they arrive.
    public let transport: GattValueTransport
}

/// Writes to one characteristic with the write type and over the transport chosen when it
/// was made (``GattConnection/writer(for:type:preferring:)``). One write at a time: the
/// caller serialises them.
public final class GattWriter: Sendable {
    public let characteristic: GattCharacteristic
    /// Write Requests (each acknowledged by the peer, in order on any link) or Write Commands.
    public let type: GattWriteType
    /// `acquired-socket` (Write Commands over `AcquireWrite`) or `dbus-messages` (`WriteValue`).
    public let transport: GattValueTransport
    private let connection: GattConnection
    private let socket: GattAcquiredSocket?

    init(connection: GattConnection, characteristic: GattCharacteristic, socket: GattAcquiredSocket?, type: GattWriteType) {
        self.connection = connection
        self.characteristic = characteristic
        self.socket = socket
        self.type = type
        transport = socket == nil ? .dbusMessages : .acquiredSocket
    }

    /// The largest value one write carries: MTU − 3.
    public var maximumLength: Int {
        get async {
            if let socket { return socket.maximumValueLength }
            return await connection.maximumWriteLength(for: characteristic)
        }
    }

    /// Writes one value of at most ``maximumLength`` bytes.
    public func write(_ value: [UInt8]) async throws(BluetoothError) {
        guard let socket else {
            try await connection.write(value, to: characteristic, type: type)
            return
        }
        guard let error = await socket.send(value) else { return }
        if error == ECANCELED { throw .cancelled }
        throw await connection.socketFailed(characteristic.path, errno: error)
    }
}
