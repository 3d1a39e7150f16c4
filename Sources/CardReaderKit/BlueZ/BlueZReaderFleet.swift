internal import BLETransport
import DisabledLogging
public import Logging
import Timing

/// Several readers over one D-Bus connection and one adapter: a shop's lanes driven from
/// one process. Find every reader in range (or the ones named), then connect to each: every
/// reader gets its own `CardReader` with its own link, decoder and state, so one reader's
/// failure or disconnect never disturbs another's traffic.
///
/// ```swift
/// let fleet = try await BlueZReaderFleet.open(adapter: "hci3")
/// let found = try await fleet.scan(for: .seconds(5))                  // every VPOS reader in range
/// for outcome in await fleet.connectAll(found) {
///     switch outcome.result {
///     case .success(let reader): print(outcome.device.summary, try await reader.info())
///     case .failure(let error): print(outcome.device.summary, error)
///     }
/// }
/// await fleet.close()
/// ```
///
/// Discovery is one per D-Bus client in BlueZ, so the fleet runs one at a time; a reader
/// BlueZ already knows (found by a scan, or reconnecting after a restart) is connected to
/// directly, without a discovery.
public actor BlueZReaderFleet: ReaderFleet {
    /// The adapter every reader is reached through, e.g. `hci3`.
    public nonisolated let adapterName: String
    /// How notifications and writes travel on each link.
    public nonisolated let valueTransport: BlueZValueTransport
    /// The largest ATT MTU each link uses (writes of at most this − 3 bytes).
    public nonisolated let maximumMTU: Int

    /// Where the fleet's readers log (nowhere unless given to ``open(adapter:busAddress:valueTransport:maximumMTU:logger:clock:)``).
    public nonisolated let logger: Logger

    private let adapter: BluetoothAdapter
    /// One discovery at a time, and one first connection set-up at a time, in arrival order.
    private var discoveryGate = CommandGate()
    private var connectGate = CommandGate()
    /// Readers (by address) this fleet has had a link to: they reconnect without a turn.
    private var linkedBefore: Set<String> = []

    private init(adapter: BluetoothAdapter, valueTransport: BlueZValueTransport, maximumMTU: Int, logger: Logger) {
        self.adapter = adapter
        self.maximumMTU = min(max(maximumMTU, 23), 247)
        self.adapterName = adapter.name
        self.valueTransport = valueTransport
        self.logger = logger
    }

    /// Opens the D-Bus connection and looks up `adapter` (the first powered one when nil).
    /// Links write at most `maximumMTU` − 3 bytes at a time (23…247). Scans, connections
    /// and BlueZ's calls are timed on `clock`.
    public static func open(
        adapter: String? = nil, busAddress: String? = nil, valueTransport: BlueZValueTransport = .acquiredSocket,
        maximumMTU: Int = 247, logger: Logger = .disabled,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(LinkError) -> BlueZReaderFleet {
        do throws(BluetoothError) {
            let session = try await BluetoothSession.open(busAddress: busAddress, clock: clock, logger: logger)
            do throws(BluetoothError) {
                return BlueZReaderFleet(
                    adapter: try await session.adapter(named: adapter), valueTransport: valueTransport,
                    maximumMTU: maximumMTU, logger: logger)
            } catch {
                await session.close()
                throw error
            }
        } catch {
            throw LinkError(error)
        }
    }

    /// Every reader whose name starts with `VPOS` seen advertising (or already connected)
    /// within `duration`, by address, in the order first seen.
    public func scan(for duration: Duration) async throws(LinkError) -> [DiscoveredReader] {
        try await scan(namePrefix: ReaderGATTProfile.localNamePrefix, for: duration)
    }

    /// Every reader whose name starts with `namePrefix` seen advertising (or already
    /// connected) within `duration`, by address, in the order first seen.
    public func scan(namePrefix: String, for duration: Duration) async throws(LinkError) -> [DiscoveredReader] {
        try await find(DiscoveryFilter(namePrefix: namePrefix), stopWhen: { _ in false }, timeout: duration)
            .map(DiscoveredReader.init)
    }

    /// The readers named by `readers` (name prefixes or addresses), each the first device
    /// that matches, scanning until every one is found or `timeout` passes. Readers not
    /// found are missing from the result.
    public func find(_ readers: [String], timeout: Duration) async throws(LinkError) -> [String: DiscoveredReader] {
        let filters = readers.map { ($0, DiscoveryFilter(nameOrAddress: $0)) }
        var matched: [String: BluetoothDeviceInfo] = [:]
        _ = try await find(DiscoveryFilter(), stopWhen: { devices in
            for (reader, filter) in filters where matched[reader] == nil {
                let taken = Set(matched.values.map(\.address))
                matched[reader] = devices.first { filter.matches($0) && !taken.contains($0.address) }
            }
            return matched.count == filters.count
        }, timeout: timeout)
        return matched.mapValues(DiscoveredReader.init)
    }

    /// A connector to `device` over this fleet's connection, for a `CardReader`. Its first
    /// connection set-up has `timeout` from its turn among the fleet's first set-ups; later
    /// ones (reconnections) start at once, each within `timeout`.
    public nonisolated func connector(for device: DiscoveredReader, timeout: Duration = .seconds(30)) -> FleetReaderConnector {
        FleetReaderConnector(fleet: self, device: device, timeout: timeout)
    }

    /// One reader's connection attempt in ``connectAll(_:timeout:configuration:clock:)``.
    public typealias ConnectionOutcome = ReaderConnectionOutcome<DiscoveredReader>

    /// Closes the D-Bus connection; links still open through it drop.
    public func close() async {
        await adapter.session.close()
    }

    // MARK: - Links

    /// A link to `device`: directly when BlueZ knows the device, else after a discovery
    /// finds it again (a reader whose device object BlueZ has dropped).
    func openLink(to reader: DiscoveredReader, timeout: Duration) async throws(LinkError) -> BlueZReaderLink {
        let filter = DiscoveryFilter(address: reader.address)
        var target: BluetoothDeviceInfo?
        do throws(BluetoothError) {
            target = try await adapter.knownDevices().first { filter.matches($0) }
        } catch {
            throw LinkError(error)
        }
        if target == nil {
            target = try await find(filter, stopWhen: { $0.contains { filter.matches($0) } }, timeout: timeout)
                .first { filter.matches($0) }
        }
        guard let target else {
            throw LinkError(BluetoothError.deviceNotFound(filter.summary, after: timeout))
        }
        // First connections take turns: the controller creates one LE connection at a time
        // anyway, and bluetoothd resolves services faster without competing set-ups. A
        // reader coming back (restarted after a firmware update, or after a drop) connects
        // at once: readers come back when they will, and one whose reader has not yet
        // advertised again must not hold up another's return, nor wait behind it.
        let takesTurn = !linkedBefore.contains(target.address)
        if takesTurn, !connectGate.tryAcquire() {
            let ticket = connectGate.takeTicket()
            _ = await withCheckedContinuation { connectGate.enqueue(ticket, $0) }
        }
        defer { if takesTurn { connectGate.release() } }
        // The set-up's own bound starts with its turn: waiting behind the others' set-ups
        // (each bounded the same way) does not use it up.
        let link = try await BlueZReaderConnector.openLink(
            to: target, on: adapter, until: adapter.session.clock.elapsed() + timeout, attempts: 3, valueTransport: valueTransport.gatt,
            maximumMTU: maximumMTU, ownsSession: false, logger: logger)
        linkedBefore.insert(target.address)
        return link
    }

    // MARK: - Discovery, one at a time

    /// Runs a discovery (after any other the fleet runs) collecting devices that match
    /// `filter` and advertise (or are connected), until `stopWhen` holds or `timeout` passes.
    private func find(
        _ filter: DiscoveryFilter, stopWhen done: ([BluetoothDeviceInfo]) -> Bool, timeout: Duration
    ) async throws(LinkError) -> [BluetoothDeviceInfo] {
        await takeDiscovery()
        defer { releaseDiscovery() }
        do throws(BluetoothError) {
            return try await adapter.scan(filter, timeout: timeout, until: done)
        } catch {
            throw LinkError(error)
        }
    }

    private func takeDiscovery() async {
        guard !discoveryGate.tryAcquire() else { return }
        let ticket = discoveryGate.takeTicket()
        _ = await withCheckedContinuation { discoveryGate.enqueue(ticket, $0) }
    }

    private func releaseDiscovery() {
        discoveryGate.release()
    }
}

/// Opens links to one reader of a ``BlueZReaderFleet``, over the fleet's D-Bus connection.
public struct FleetReaderConnector: ReaderConnector {
    /// The fleet whose D-Bus connection and adapter the links use.
    public let fleet: BlueZReaderFleet
    /// The reader, as a scan found it.
    public let device: DiscoveredReader
    /// The bound of finding and connecting.
    public let timeout: Duration

    /// E.g. `VPOS3356-0001 (00:AA:01:00:00:00)`.
    public var readerDescription: String { device.summary }

    /// Connects to ``device`` over the fleet's connection, one connection set-up at a time
    /// across the fleet; a device BlueZ has forgotten is first found again by a scan.
    public func connect() async throws(LinkError) -> any ReaderLink {
        try await fleet.openLink(to: device, timeout: timeout)
    }
}
