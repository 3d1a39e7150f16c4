import BLETransport
import Logging

/// A ``ReaderLink`` over BlueZ: frames go to the reader's RX characteristic, its TX
/// notifications come back on ``inbound``. Made by ``BlueZReaderConnector``.
///
/// When BlueZ reports the link gone (`Connected` false, the device removed, bluetoothd
/// restarted), ``inbound`` yields ``LinkInbound/dropped(_:)`` with the code
/// `remote-disconnected`, `device-removed`, `bluetoothd-restarted`,
/// `gatt-services-removed` or `dbus-disconnected`, and a write in flight fails at once.
public actor BlueZReaderLink: ReaderLink {
    /// The reader accepts an ATT MTU of at most 247 (documentation §1).
    static let largestReaderPacket = 244

    public nonisolated let inbound: AsyncStream<LinkInbound>
    /// The connected device.
    public nonisolated let device: BluetoothDeviceInfo

    private let session: BluetoothSession
    private let connection: GattConnection
    private let receive: GattCharacteristic
    private let pump: Task<Void, Never>
    private var closed = false

    init(
        session: BluetoothSession, connection: GattConnection, device: BluetoothDeviceInfo,
        receive: GattCharacteristic, notifications: AsyncStream<[UInt8]>
    ) {
        self.session = session
        self.connection = connection
        self.device = device
        self.receive = receive
        let (stream, continuation) = AsyncStream.makeStream(of: LinkInbound.self)
        inbound = stream
        pump = Task {
            for await value in notifications {
                continuation.yield(.notification(value))
            }
            if let loss = await connection.linkLoss {
                continuation.yield(.dropped(loss))
            }
            continuation.finish()
        }
    }

    /// The ATT MTU − 3 BlueZ reports for RX (20 without an MTU), at most 244.
    public var maximumWriteLength: Int {
        get async { min(await connection.maximumWriteLength(for: receive), Self.largestReaderPacket) }
    }

    /// Writes one packet to RX, with response when RX supports it.
    public func write(_ packet: [UInt8]) async throws(LinkError) {
        guard !closed else { throw LinkError(.notConnected, "the link is closed") }
        do throws(BluetoothError) {
            try await connection.write(packet, to: receive)
        } catch {
            throw LinkError(error)
        }
    }

    /// Stops notifications, disconnects the reader and closes the D-Bus connection.
    public func close() async {
        guard !closed else { return }
        closed = true
        await connection.disconnect()
        await pump.value
        await session.close()
    }
}

extension LinkError {
    /// A BlueZ failure as a link error: the code is BlueZ's D-Bus error name or the
    /// BlueZ layer's code (`bluetoothd-not-running`, `remote-disconnected`, …).
    public init(_ error: BluetoothError) {
        self.init(error.code, error.description)
    }
}
