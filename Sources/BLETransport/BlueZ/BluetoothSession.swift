import DisabledLogging
import Logging
import Timing

/// A connection to bluetoothd over D-Bus: the entry point of the BlueZ layer
/// (Session → ``BluetoothAdapter`` → ``BluetoothDevice`` → ``GattConnection``).
///
/// ```swift
/// let session = try await BluetoothSession.open()
/// let adapter = try await session.adapter()            // first powered adapter
/// for try await device in try await adapter.discover(DiscoveryFilter(namePrefix: "VPOS")) { … }
/// ```
public final class BluetoothSession: Sendable {
    /// The private D-Bus connection all calls go through.
    public let connection: DBusConnection
    let logger: Logger
    /// Where BlueZ's signals arrive and are routed to the object that follows them.
    let signals: BlueZSignalRouter

    /// What the session's deadlines run on: its D-Bus connection's clock.
    package var clock: ElapsedClock { connection.clock }

    /// Wraps an open D-Bus connection (the session does not own it: see ``close()``).
    public init(connection: DBusConnection, logger: Logger = .disabled) {
        self.connection = connection
        self.logger = logger
        signals = BlueZSignalRouter(connection: connection)
    }

    /// Connects to the system bus, or to the bus at `busAddress`
    /// (`unix:path=/run/dbus/system_bus_socket`). Every deadline of the session — its calls,
    /// discoveries, connections and their retries — runs on `clock`.
    public static func open(
        busAddress: String? = nil, clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .disabled
    ) async throws(BluetoothError) -> BluetoothSession {
        do throws(DBusError) {
            let connection =
                if let busAddress {
                    try await DBusConnection.connect(address: busAddress, clock: clock, logger: logger)
                } else {
                    try await DBusConnection.systemBus(clock: clock, logger: logger)
                }
            return BluetoothSession(connection: connection, logger: logger)
        } catch {
            throw BluetoothError(error, operation: "connecting to the D-Bus system bus")
        }
    }

    /// Closes the D-Bus connection: BlueZ then stops this client's discovery and
    /// notification sessions and drops its GATT applications and advertisements.
    public func close() async {
        await connection.close()
    }

    /// Every adapter, sorted by name.
    public func adapters() async throws(BluetoothError) -> [BluetoothAdapter] {
        let objects = try await managedObjects()
        return objects.compactMap { path, interfaces -> BluetoothAdapter? in
            guard let properties = interfaces[BlueZNames.adapterInterface] else { return nil }
            return BluetoothAdapter(session: self, path: path, properties: properties)
        }.sorted { $0.name < $1.name }
    }

    /// The adapter named `name` (`hci1`), or the first powered one when nil.
    /// Throws ``BluetoothError/noSuchAdapter(_:available:)``,
    /// ``BluetoothError/adapterPoweredOff(_:)`` or ``BluetoothError/bluetoothdNotRunning(_:)``.
    public func adapter(named name: String? = nil) async throws(BluetoothError) -> BluetoothAdapter {
        let all = try await adapters()
        if let name {
            guard let adapter = all.first(where: { $0.name == name || $0.address.uppercased() == name.uppercased() })
            else { throw .noSuchAdapter(name, available: all.map(\.name)) }
            guard adapter.isPowered else { throw .adapterPoweredOff(adapter.name) }
            return adapter
        }
        guard let first = all.first else { throw .noSuchAdapter(nil, available: []) }
        guard let powered = all.first(where: \.isPowered) else { throw .adapterPoweredOff(first.name) }
        return powered
    }

    // MARK: Internals shared by the BlueZ types

    func managedObjects() async throws(BluetoothError) -> [DBusObjectPath: [String: [String: DBusValue]]] {
        do throws(DBusError) {
            return try await connection.managedObjects(destination: BlueZNames.service, timeout: .seconds(10))
        } catch {
            throw BluetoothError(error, operation: "reading BlueZ objects")
        }
    }

    /// BlueZ's signals about `root` and the objects below it (see ``BlueZSignalRouter``).
    func events(under root: DBusObjectPath, interfaces: Set<String>? = nil) async throws(BluetoothError)
        -> AsyncStream<BlueZEvent>
    {
        try await signals.events(under: root, interfaces: interfaces)
    }

    /// A call that undoes something (StopDiscovery, Disconnect, an Unregister…): it is
    /// sent even when the calling task is cancelled, as a cleanup most often is (Ctrl-C, a
    /// connect given up), and its error is only logged (debug): what it undoes may be gone.
    func cleanUp(
        _ path: DBusObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration
    ) async {
        await Task {
            do throws(BluetoothError) {
                try await call(path, interface, member, arguments, timeout: timeout, operation: "\(member) \(path)")
            } catch {
                logger.debug("\(member) \(path): \(error)")
            }
        }.value
    }

    @discardableResult
    func call(
        _ path: DBusObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25), operation: String
    ) async throws(BluetoothError) -> [DBusValue] {
        do throws(DBusError) {
            return try await connection.call(
                destination: BlueZNames.service, path: path, interface: interface, member: member,
                body: arguments, timeout: timeout)
        } catch {
            throw BluetoothError(error, operation: operation)
        }
    }
}
