package import BLETransport
internal import Logging

/// A ``ReaderLink`` over BlueZ: frames go to the reader's RX characteristic, its TX
/// notifications come back on ``inbound``. Made by ``BlueZReaderConnector``.
///
/// ``inbound`` is the notification stream the BlueZ layer fills on its D-Bus thread: from
/// an `AcquireNotify` socket or from `PropertiesChanged` signals (``transport`` says which),
/// with nothing in between. When BlueZ reports the link gone (`Connected` false, the device
/// removed, bluetoothd restarted), it yields `LinkInbound.dropped(_:)` with the code
/// `remote-disconnected`, `device-removed`, `bluetoothd-restarted`,
/// `gatt-services-removed`, `acquired-socket-closed` or `dbus-disconnected`, and a write in
/// flight fails at once.
package final class BlueZReaderLink: ReaderLink, CustomStringConvertible {
    /// The reader accepts an ATT MTU of at most 247 (documentation §1).
    static let largestReaderPacket = 244

    /// The reader's TX notifications as they arrive, then one `LinkInbound.dropped(_:)`
    /// when BlueZ reports the link gone.
    package let inbound: AsyncMapSequence<AsyncStream<GattInbound>, LinkInbound>
    /// The connected device.
    package let device: BluetoothDeviceInfo
    /// How notifications and writes travel.
    package let transport: Transport
    /// Encrypted when BlueZ holds a bond with the reader: bluetoothd then opens the ATT
    /// channel at medium security, so the kernel encrypts with the bond's key before the
    /// first ATT PDU, or the connection fails; and the TX subscription, which a reader from
    /// firmware 3.0 grants only on an encrypted link, succeeded.
    package let security: LinkSecurity

    /// The Battery service's level, from `org.bluez.Battery1`.
    package var batteryLevels: AsyncStream<UInt8>? { battery?.levels }

    private let session: BluetoothSession
    private let battery: BlueZBatteryLevels?
    private let ownsSession: Bool
    private let connection: GattConnection
    private let writer: GattWriter
    private let maximumPacket: Int

    /// How the two directions travel.
    package struct Transport: Sendable, Hashable, CustomStringConvertible {
        /// TX notifications: `acquired-socket` (AcquireNotify) or `dbus-messages`.
        package var notifications: GattValueTransport
        /// RX writes: Write Requests (`request`) wherever RX takes them, each acknowledged by
        /// the reader before the next one leaves, so frames and YModem blocks arrive in order
        /// on a link with any number of ATT bearers; Write Commands (`command`) only for a
        /// reader whose RX takes nothing else.
        package var writes: GattWriteType
        /// How RX writes reach bluetoothd: `dbus-messages` (WriteValue), or `acquired-socket`
        /// (AcquireWrite, for commands only).
        package var writeTransport: GattValueTransport

        /// The transports of TX notifications and RX writes.
        package init(
            notifications: GattValueTransport, writes: GattWriteType, writeTransport: GattValueTransport = .dbusMessages
        ) {
            self.notifications = notifications
            self.writes = writes
            self.writeTransport = writeTransport
        }

        /// E.g. `notify acquired-socket, write request`, or
        /// `notify dbus-messages, write command over acquired-socket`.
        package var description: String {
            let over = writes == .request ? "" : " over \(writeTransport)"
            return "notify \(notifications), write \(writes)\(over)"
        }
    }

    init(
        session: BluetoothSession, ownsSession: Bool, connection: GattConnection, device: BluetoothDeviceInfo,
        notifications: GattNotifications, writer: GattWriter, maximumPacket: Int, battery: BlueZBatteryLevels?
    ) {
        self.battery = battery
        self.maximumPacket = min(maximumPacket, Self.largestReaderPacket)
        self.session = session
        self.ownsSession = ownsSession
        self.connection = connection
        self.device = device
        self.writer = writer
        security = device.isBonded ? .encrypted : .unencrypted
        inbound = notifications.values.map(LinkInbound.init)
        transport = Transport(
            notifications: notifications.transport, writes: writer.type, writeTransport: writer.transport)
    }

    /// The D-Bus connection's dispatch thread, which reads the notifications and the
    /// replies to writes.
    package var executor: (any TaskExecutor)? { session.connection.executor }

    /// E.g. `VPOS3356-1A2B (AA:BB:CC:DD:EE:FF) over BlueZ (notify acquired-socket, write request)`.
    package var description: String { "\(device.summary) over BlueZ (\(transport))" }

    /// The ATT MTU − 3 BlueZ reports for RX (20 without an MTU), at most 244 and at most
    /// the connector's `maximumMTU` − 3.
    package var maximumWriteLength: Int {
        get async { min(await writer.maximumLength, maximumPacket) }
    }

    /// Writes one packet to RX. The caller (the reader session) serialises writes.
    package func write(_ packet: [UInt8]) async throws(LinkError) {
        do throws(BluetoothError) {
            try await writer.write(packet)
        } catch {
            throw LinkError(error)
        }
    }

    /// Stops notifications and disconnects the reader; closes the D-Bus connection unless
    /// a ``BlueZReaderFleet`` shares it. Idempotent.
    package func close() async {
        battery?.stop()
        await connection.disconnect()
        if ownsSession { await session.close() }
    }
}
