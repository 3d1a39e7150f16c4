package import BLETransport
public import Logging

/// Opens links to a VPOS reader over BlueZ: finds it by name prefix (`VPOS3356-1A2B`,
/// `VPOS`) or address on an adapter (the first powered one by default), discovers,
/// connects, binds the ISSC TX and RX characteristics and enables notifications.
///
/// ```swift
/// let reader = CardReader(connector: BlueZReaderConnector(reader: "VPOS3356-1A2B", adapter: "hci1"))
/// try await reader.connect(timeout: .seconds(15))
/// ```
/// A reader already connected in BlueZ (e.g. by a process that crashed) is used as it is.
public struct BlueZReaderConnector: ReaderConnector {
    /// A name prefix or an address (`AA:BB:CC:DD:EE:FF`).
    public var reader: String
    /// The adapter (`hci1`); nil: the first powered adapter.
    public var adapter: String?
    /// The D-Bus address of the bus bluetoothd is on; nil: the system bus.
    public var busAddress: String?
    /// The bound of discovery plus connection (the caller's own deadline usually ends
    /// it earlier by cancelling).
    public var timeout: Duration
    /// Connection attempts when BlueZ aborts a connection (`le-connection-abort-by-local`).
    public var connectAttempts: Int
    /// How notifications travel: `.acquiredSocket` (the default) uses an `AcquireNotify`
    /// socket where bluetoothd offers one and falls back to D-Bus messages; `.dbusMessages`
    /// always uses `StartNotify`. Writes are Write Requests (`WriteValue`) either way.
    public var valueTransport: BlueZValueTransport
    /// The largest ATT MTU the link uses (23…247, default 247): writes are at most this − 3
    /// bytes even where BlueZ negotiated more.
    public var maximumMTU: Int
    /// Where discovery, connection and link events are logged.
    public var logger: Logger

    /// A connector to the reader named or addressed by `reader`; nothing happens until
    /// ``connect()``. `maximumMTU` is clamped to 23…247.
    public init(
        reader: String = ReaderGATTProfile.localNamePrefix, adapter: String? = nil, busAddress: String? = nil,
        timeout: Duration = .seconds(30), connectAttempts: Int = 3, valueTransport: BlueZValueTransport = .acquiredSocket,
        maximumMTU: Int = 247, logger: Logger = Logger(label: "CardReaderKit.BlueZ")
    ) {
        self.valueTransport = valueTransport
        self.maximumMTU = min(max(maximumMTU, 23), 247)
        self.reader = reader
        self.adapter = adapter
        self.busAddress = busAddress
        self.timeout = timeout
        self.connectAttempts = connectAttempts
        self.logger = logger
    }

    /// E.g. `VPOS3356-1A2B on hci1`.
    public var readerDescription: String { adapter.map { "\(reader) on \($0)" } ?? reader }

    /// The discovery filter for ``reader``.
    package var filter: DiscoveryFilter {
        DiscoveryFilter(nameOrAddress: reader)
    }

    /// Opens its own D-Bus connection, finds the reader within ``timeout``, connects
    /// (``connectAttempts`` attempts in all when BlueZ aborts one) and binds TX and RX;
    /// closing the link closes that D-Bus connection.
    public func connect() async throws(LinkError) -> any ReaderLink {
        let deadline = ContinuousClock.now + timeout
        let session: BluetoothSession
        do throws(BluetoothError) {
            session = try await BluetoothSession.open(busAddress: busAddress, logger: logger)
        } catch {
            throw LinkError(error)
        }
        do throws(BluetoothError) {
            let adapter = try await session.adapter(named: self.adapter)
            let found = try await adapter.find(filter, timeout: max(deadline - .now, .milliseconds(1)))
            return try await Self.openLink(
                to: found, on: adapter, until: deadline, attempts: connectAttempts, valueTransport: valueTransport.gatt,
                maximumMTU: maximumMTU, ownsSession: true, logger: logger)
        } catch {
            await session.close()
            throw LinkError(error)
        }
    }

    /// Connects to a device found on `adapter`, binds TX and RX and enables notifications.
    /// With `ownsSession`, closing the link closes the adapter's D-Bus connection too.
    package static func openLink(
        to found: BluetoothDeviceInfo, on adapter: BluetoothAdapter, until deadline: ContinuousClock.Instant,
        attempts: Int, valueTransport: GattValueTransport, maximumMTU: Int, ownsSession: Bool, logger: Logger
    ) async throws(BluetoothError) -> BlueZReaderLink {
        logger.info("connecting", metadata: ["reader": "\(found.summary)", "adapter": "\(adapter.name)"])
        let connection = try await adapter.device(at: found.path).connect(
            timeout: max(deadline - .now, .milliseconds(1)), attempts: attempts)
        return try await BlueZReaderLink.bind(
            connection, device: found, ownsSession: ownsSession, valueTransport: valueTransport, maximumMTU: maximumMTU,
            logger: logger)
    }
}
