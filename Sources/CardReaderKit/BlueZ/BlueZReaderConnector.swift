package import BLETransport
import DisabledLogging
import Locking
public import Logging
import Timing

/// Opens links to a VPOS reader over BlueZ: finds it by name prefix (`VPOS3356-1A2B`,
/// `VPOS`) or address on an adapter (the first powered one by default), discovers,
/// connects, binds the ISSC TX and RX characteristics and enables notifications.
///
/// ```swift
/// let reader = CardReader(connector: BlueZReaderConnector(reader: "VPOS3356-1A2B", adapter: "hci1"))
/// try await reader.connect(timeout: .seconds(15))
/// ```
/// A reader already connected in BlueZ (e.g. by a process that crashed) is used as it is.
/// Once a connect has found the reader, later ones (a reconnection) connect to that device
/// directly through `Device1.Connect`, with no discovery, while BlueZ still knows it: a
/// bonded reader always, another until BlueZ forgets it unseen.
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
    /// Where ``pair(_:)`` notes when and how it paired, and ``unpair()`` forgets it (nil:
    /// nowhere); by default the user's state directory (``ReaderBondStore/userDefault``).
    public var bondStore: ReaderBondStore?
    /// What ``timeout``, BlueZ's calls and the connection's retries are measured on:
    /// `ContinuousClock` in production, a test's `ManualClock`.
    public var clock: any Clock<Duration>
    /// The Bluetooth controllers the kernel has (`/sys/class/bluetooth`).
    package var kernelControllers: @Sendable () -> [String] = { KernelBluetoothControllers.names() }
    /// The address the last connect found, shared by the connector's copies.
    private let found = Locked<String?>(nil)
    /// The address of the adapter the last connect used, shared likewise: an adapter that
    /// goes and comes back (a USB controller replugged, a controller reset) may return
    /// under another `hciN`, and the reader's bond is with that adapter's address.
    private let foundOn = Locked<String?>(nil)

    /// A connector to the reader named or addressed by `reader`; nothing happens until
    /// ``connect()``. `maximumMTU` is clamped to 23…247.
    public init(
        reader: String = ReaderGATTProfile.localNamePrefix, adapter: String? = nil, busAddress: String? = nil,
        timeout: Duration = .seconds(30), connectAttempts: Int = 3, valueTransport: BlueZValueTransport = .acquiredSocket,
        maximumMTU: Int = 247, logger: Logger = .disabled,
        bondStore: ReaderBondStore? = .userDefault, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.bondStore = bondStore
        self.clock = clock
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
    /// (``connectAttempts`` attempts in all when BlueZ aborts one), decides the link's
    /// security (`LinkSecurityPolicy`) and binds TX and RX; closing the link closes that
    /// D-Bus connection. Once connected, later connects go to the same reader on the same
    /// adapter, found by their addresses: straight to the device while BlueZ knows it, and
    /// to the adapter under whatever name it has when it comes back.
    ///
    /// bluetoothd restarting under the connect (it crashed, and systemd started it again)
    /// does not end it: the connect waits for the new bluetoothd to register and power the
    /// adapter, then starts over, all within ``timeout``; a bluetoothd that does not come
    /// back ends it with `bluetoothd-not-running` at the deadline; one not running at the
    /// start, and not started by the bus for the connect's first call, ends it at once. An
    /// adapter the kernel has but bluetoothd does not list yet (bluetoothd starting) is
    /// waited for the same way; one the kernel does not have either fails at once with
    /// `no-such-adapter`.
    public func connect() async throws(LinkError) -> any ReaderLink {
        let session: BluetoothSession
        do throws(BluetoothError) {
            session = try await BluetoothSession.open(busAddress: busAddress, clock: clock, logger: logger)
        } catch {
            throw LinkError(error)
        }
        let deadline = session.clock.elapsed() + timeout
        var bluetoothdRestarted = false
        while true {
            let startedWith = await Self.bluetoothdOwner(on: session)
            do throws(LinkError) {
                return try await attempt(on: session, until: deadline, afterRestart: bluetoothdRestarted)
            } catch {
                guard error.code != .cancelled, session.clock.elapsed() < deadline,
                    await Self.bluetoothdRestarted(since: startedWith, failingWith: error, on: session)
                else {
                    await session.close()
                    throw error
                }
                logger.warning(
                    "bluetoothd restarted under the connect: connecting again once it has the adapter",
                    metadata: ["reader": "\(readerDescription)", "error": "\(error)"])
                bluetoothdRestarted = true
            }
        }
    }

    /// One connect on `session`: the adapter, the reader on it, the link.
    private func attempt(
        on session: BluetoothSession, until deadline: Duration, afterRestart: Bool
    ) async throws(LinkError) -> BlueZReaderLink {
        let adapter: BluetoothAdapter
        let found: BluetoothDeviceInfo
        do throws(BluetoothError) {
            adapter = try await self.adapter(on: session, until: deadline, afterRestart: afterRestart)
            if let known = try await known(on: adapter) {
                found = known
            } else {
                found = try await adapter.find(filter, timeout: max(deadline - session.clock.elapsed(), .milliseconds(1)))
            }
        } catch {
            throw LinkError(error)
        }
        self.found.withLock { $0 = found.address }
        foundOn.withLock { $0 = adapter.address }
        return try await Self.openLink(
            to: found, on: adapter, until: deadline, attempts: connectAttempts, valueTransport: valueTransport.gatt,
            maximumMTU: maximumMTU, ownsSession: true, logger: logger)
    }

    /// The adapter to connect on: the one the last connect used, else ``adapter``. After
    /// bluetoothd restarted, or while the kernel has it and bluetoothd does not list it
    /// yet, it is waited for until `deadline`.
    private func adapter(
        on session: BluetoothSession, until deadline: Duration, afterRestart: Bool
    ) async throws(BluetoothError) -> BluetoothAdapter {
        let name = foundOn.withLock { $0 } ?? self.adapter
        if afterRestart { return try await session.adapter(named: name, returningUntil: deadline) }
        return try await session.adapter(
            named: name, startingWithin: deadline - session.clock.elapsed(), kernelControllers: kernelControllers())
    }

    /// Whether the bluetoothd the failed attempt started with (nil: none) is not the one
    /// now: the failure says so, or another process owns `org.bluez` now, or none does, or
    /// one does where none did (the attempt's first call started it, by D-Bus activation).
    private static func bluetoothdRestarted(
        since startedWith: String?, failingWith error: LinkError, on session: BluetoothSession
    ) async -> Bool {
        if error.code == .bluetoothdRestarted { return true }
        return await bluetoothdOwner(on: session) != startedWith
    }

    /// The unique bus name owning `org.bluez` (one call to the bus, none to bluetoothd), or
    /// nil when nobody does.
    private static func bluetoothdOwner(on session: BluetoothSession) async -> String? {
        try? await session.connection.nameOwner(BlueZNames.service)
    }

    /// The device an earlier connect found, if BlueZ still has it on `adapter`.
    private func known(on adapter: BluetoothAdapter) async throws(BluetoothError) -> BluetoothDeviceInfo? {
        guard let address = found.withLock({ $0 }) else { return nil }
        guard let device = try await adapter.knownDevices().first(where: { $0.address == address }) else {
            logger.debug("BlueZ no longer knows the reader: discovering it again", metadata: ["address": "\(address)"])
            return nil
        }
        logger.debug("connecting to the known device, without discovery", metadata: ["reader": "\(device.summary)"])
        return device
    }

    /// Connects to a device found on `adapter`, decides the link's security from the
    /// reader's firmware revision (Device Information `2A26`, readable unencrypted) and
    /// whether BlueZ holds a bond with it, then binds TX and RX and enables notifications.
    /// A reader that needs an encrypted link this host cannot give is disconnected before
    /// TX or RX is touched: so bluetoothd never pairs by itself behind the caller's back.
    /// With `ownsSession`, closing the link closes the adapter's D-Bus connection too.
    /// `deadline` is a time on the session's clock.
    package static func openLink(
        to found: BluetoothDeviceInfo, on adapter: BluetoothAdapter, until deadline: Duration,
        attempts: Int, valueTransport: GattValueTransport, maximumMTU: Int, ownsSession: Bool, logger: Logger
    ) async throws(LinkError) -> BlueZReaderLink {
        logger.info("connecting", metadata: ["reader": "\(found.summary)", "adapter": "\(adapter.name)"])
        let connection: GattConnection
        do throws(BluetoothError) {
            connection = try await adapter.device(at: found.path).connect(
                timeout: max(deadline - adapter.session.clock.elapsed(), .milliseconds(1)), attempts: attempts)
        } catch {
            throw found.isBonded && BlueZLinkSecurity.isEncryptionFailure(error)
                ? LinkError.bondLost(found.summary, error.description) : LinkError(error)
        }
        let security: LinkSecurityPolicy.Decision
        do throws(BluetoothError) {
            security = try await BlueZLinkSecurity.decide(for: connection, found: found, logger: logger).decision
        } catch {
            await connection.disconnect()
            throw found.isBonded && BlueZLinkSecurity.isEncryptionFailure(error)
                ? LinkError.bondLost(found.summary, error.description) : LinkError(error)
        }
        guard security != .needsPairing else {
            await connection.disconnect()
            throw LinkError.notPaired(found.summary)
        }
        do throws(BluetoothError) {
            return try await BlueZReaderLink.bind(
                connection, device: found, ownsSession: ownsSession, valueTransport: valueTransport,
                maximumMTU: maximumMTU, logger: logger)
        } catch {
            throw security == .encryptWithBond && BlueZLinkSecurity.isEncryptionFailure(error)
                ? LinkError.bondLost(found.summary, error.description) : LinkError(error)
        }
    }
}
