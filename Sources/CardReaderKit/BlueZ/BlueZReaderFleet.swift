internal import BLETransport
import DisabledLogging
public import Logging
import Timing

/// Several readers over one D-Bus connection and one or more adapters: a shop's lanes
/// driven from one process. Find every reader in range (or the ones named), then connect to
/// each: every reader gets its own `CardReader` with its own link, decoder and state, so
/// one reader's failure or disconnect never disturbs another's traffic.
///
/// ```swift
/// let fleet = try await BlueZReaderFleet.open(adapters: ["hci3", "hci4"])
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
/// A controller holds a handful of LE links (5 to 7 is common, and none reports its
/// figure): a fleet that spans adapters spreads its readers over them. A reader seen on
/// several adapters is reached through the one already connected to it, else the one that
/// holds its bond (a bond is an adapter's), else the one with the fewest links in use,
/// and stays on that adapter. Each adapter is known by its address: one that goes away and
/// comes back under another `hciN` (a USB controller replugged) serves its readers again.
///
/// Discovery is one per D-Bus client and adapter in BlueZ, so the fleet runs one at a time
/// on each adapter; a reader BlueZ already knows (found by a scan, or reconnecting after a
/// restart) is connected to directly, without a discovery.
public actor BlueZReaderFleet: ReaderFleet {
    /// The adapters readers are reached through, as they were named when the fleet opened,
    /// e.g. `["hci3", "hci4"]`.
    public nonisolated let adapterNames: [String]
    /// How notifications and writes travel on each link.
    public nonisolated let valueTransport: BlueZValueTransport
    /// The largest ATT MTU each link uses (writes of at most this − 3 bytes).
    public nonisolated let maximumMTU: Int

    /// Where the fleet's readers log (nowhere unless given to ``open(adapters:busAddress:valueTransport:maximumMTU:logger:clock:)``).
    public nonisolated let logger: Logger

    private let session: BluetoothSession
    /// The fleet's adapters' addresses, in the order given: what finds each adapter again,
    /// whatever its `hciN`.
    private let adapterAddresses: [String]
    /// Per adapter (by address): one discovery at a time, and one first connection set-up
    /// at a time, in arrival order.
    private var discoveryGates: [String: CommandGate] = [:]
    private var connectGates: [String: CommandGate] = [:]
    /// The adapter (address) each reader (address) is reached through, from its first
    /// link on: the reader's bond, if it has one, is with that adapter.
    private var adapterOfReader: [String: String] = [:]
    /// Readers (by address) this fleet has had a link to: they reconnect without a turn.
    private var linkedBefore: Set<String> = []

    private init(
        session: BluetoothSession, adapters: [BluetoothAdapter], valueTransport: BlueZValueTransport, maximumMTU: Int,
        logger: Logger
    ) {
        self.session = session
        self.adapterAddresses = adapters.map(\.address)
        self.adapterNames = adapters.map(\.name)
        self.maximumMTU = min(max(maximumMTU, 23), 247)
        self.valueTransport = valueTransport
        self.logger = logger
    }

    /// Opens the D-Bus connection and looks up `adapters` (names such as `hci3`, or
    /// addresses; every powered adapter when empty). Links write at most `maximumMTU` − 3
    /// bytes at a time (23…247). Scans, connections and BlueZ's calls are timed on `clock`.
    public static func open(
        adapters: [String], busAddress: String? = nil, valueTransport: BlueZValueTransport = .acquiredSocket,
        maximumMTU: Int = 247, logger: Logger = .disabled,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(LinkError) -> BlueZReaderFleet {
        try await open(busAddress: busAddress, valueTransport: valueTransport, maximumMTU: maximumMTU, logger: logger, clock: clock) {
            session throws(BluetoothError) in
            guard !adapters.isEmpty else {
                let powered = try await session.adapters().filter(\.isPowered)
                // None powered: the error names the first, as one adapter's would.
                return powered.isEmpty ? [try await session.adapter(named: nil)] : powered
            }
            var found: [BluetoothAdapter] = []
            for name in adapters {
                let adapter = try await session.adapter(named: name)
                if !found.contains(where: { $0.address == adapter.address }) { found.append(adapter) }
            }
            return found
        }
    }

    /// A fleet on one adapter, `adapter` (the first powered one when nil): see
    /// ``open(adapters:busAddress:valueTransport:maximumMTU:logger:clock:)``.
    public static func open(
        adapter: String? = nil, busAddress: String? = nil, valueTransport: BlueZValueTransport = .acquiredSocket,
        maximumMTU: Int = 247, logger: Logger = .disabled,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(LinkError) -> BlueZReaderFleet {
        try await open(busAddress: busAddress, valueTransport: valueTransport, maximumMTU: maximumMTU, logger: logger, clock: clock) {
            session throws(BluetoothError) in [try await session.adapter(named: adapter)]
        }
    }

    /// A fleet over a new D-Bus connection, on the adapters `choose` looks up on it.
    private static func open(
        busAddress: String?, valueTransport: BlueZValueTransport, maximumMTU: Int, logger: Logger, clock: any Clock<Duration>,
        choosing choose: (BluetoothSession) async throws(BluetoothError) -> [BluetoothAdapter]
    ) async throws(LinkError) -> BlueZReaderFleet {
        do throws(BluetoothError) {
            let session = try await BluetoothSession.open(busAddress: busAddress, clock: clock, logger: logger)
            do throws(BluetoothError) {
                return BlueZReaderFleet(
                    session: session, adapters: try await choose(session), valueTransport: valueTransport, maximumMTU: maximumMTU,
                    logger: logger)
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
    }

    /// The readers named by `readers` (name prefixes or addresses), each the first device
    /// that matches, scanning until every one is found or `timeout` passes. Readers not
    /// found are missing from the result.
    public func find(_ readers: [String], timeout: Duration) async throws(LinkError) -> [String: DiscoveredReader] {
        let filters = readers.map { ($0, DiscoveryFilter(nameOrAddress: $0)) }
        let matching = { (devices: [BluetoothDeviceInfo]) -> [String: BluetoothDeviceInfo] in
            var matched: [String: BluetoothDeviceInfo] = [:]
            for (reader, filter) in filters {
                let taken = Set(matched.values.map(\.address))
                matched[reader] = devices.first { filter.matches($0) && !taken.contains($0.address) }
            }
            return matched
        }
        let found = try await find(DiscoveryFilter(), stopWhen: { matching($0).count == filters.count }, timeout: timeout)
        let byAddress = Dictionary(found.map { ($0.address, $0) }) { first, _ in first }
        return matching(found.map(\.device)).compactMapValues { byAddress[$0.address] }
    }

    /// A connector to `device` over this fleet's connection, for a `CardReader`. Its first
    /// connection set-up has `timeout` from its turn among the first set-ups on its
    /// adapter; later ones (reconnections) start at once, each within `timeout`.
    public nonisolated func connector(for device: DiscoveredReader, timeout: Duration = .seconds(30)) -> FleetReaderConnector {
        FleetReaderConnector(fleet: self, device: device, timeout: timeout)
    }

    /// One reader's connection attempt in ``connectAll(_:timeout:configuration:clock:)``.
    public typealias ConnectionOutcome = ReaderConnectionOutcome<DiscoveredReader>

    /// Closes the D-Bus connection; links still open through it drop.
    public func close() async {
        await session.close()
    }

    // MARK: - Links

    /// A link to `reader`, through the adapter it is reached on: directly when BlueZ knows
    /// the device there, else after a discovery on that adapter finds it again (a reader
    /// whose device object BlueZ has dropped).
    func openLink(to reader: DiscoveredReader, timeout: Duration) async throws(LinkError) -> BlueZReaderLink {
        let adapterAddress = adapterOfReader[reader.address] ?? reader.adapterAddress ?? adapterAddresses[0]
        let filter = DiscoveryFilter(address: reader.address)
        let adapter: BluetoothAdapter
        var target: BluetoothDeviceInfo?
        do throws(BluetoothError) {
            adapter = try await session.adapter(named: adapterAddress)
            target = try await adapter.knownDevices().first { filter.matches($0) }
        } catch {
            throw LinkError(error)
        }
        if target == nil {
            target = try await discover(filter, on: adapter, stopWhen: { $0.contains { filter.matches($0) } }, timeout: timeout)
                .first { filter.matches($0) }
        }
        guard let target else {
            throw LinkError(BluetoothError.deviceNotFound("\(filter.summary) on \(adapter.name)", after: timeout))
        }
        adapterOfReader[reader.address] = adapter.address
        // First connections take turns on each adapter: its controller creates one LE
        // connection at a time anyway, and bluetoothd resolves services faster without
        // competing set-ups. A reader coming back (restarted after a firmware update, or
        // after a drop) connects at once: readers come back when they will, and one whose
        // reader has not yet advertised again must not hold up another's return, nor wait
        // behind it.
        let takesTurn = !linkedBefore.contains(target.address)
        if takesTurn, connectGates[adapter.address, default: CommandGate()].tryAcquire() == false {
            let ticket = connectGates[adapter.address, default: CommandGate()].takeTicket()
            _ = await withCheckedContinuation { connectGates[adapter.address, default: CommandGate()].enqueue(ticket, $0) }
        }
        defer { if takesTurn { connectGates[adapter.address]?.release() } }
        // The set-up's own bound starts with its turn: waiting behind the others' set-ups
        // (each bounded the same way) does not use it up.
        let link = try await BlueZReaderConnector.openLink(
            to: target, on: adapter, until: session.clock.elapsed() + timeout, attempts: 3, valueTransport: valueTransport.gatt,
            maximumMTU: maximumMTU, ownsSession: false, logger: logger)
        linkedBefore.insert(target.address)
        return link
    }

    // MARK: - Discovery, one at a time on each adapter

    /// Runs a discovery on every adapter at once (each after any other the fleet runs on
    /// it), collecting devices that match `filter` and advertise (or are connected), until
    /// `stopWhen` holds for all seen so far or `timeout` passes; each reader through the
    /// adapter it is best reached on (``preferredSighting(_:)``), in the order first seen.
    private func find(
        _ filter: DiscoveryFilter, stopWhen done: @escaping ([BluetoothDeviceInfo]) -> Bool, timeout: Duration
    ) async throws(LinkError) -> [DiscoveredReader] {
        let adapters: [BluetoothAdapter]
        do throws(BluetoothError) {
            let present = try await session.adapters()
            adapters = adapterAddresses.compactMap { address in present.first { $0.address == address } }
            if adapters.isEmpty { throw .noSuchAdapter(adapterNames.joined(separator: ", "), available: present.map(\.name)) }
        } catch {
            throw LinkError(error)
        }
        var sightings: [BluetoothDeviceInfo] = []
        if adapters.count == 1 {
            sightings = try await discover(filter, on: adapters[0], stopWhen: done, timeout: timeout)
        } else {
            let search = SharedSearch(done: done)
            let outcomes = await withTaskGroup(of: Result<[BluetoothDeviceInfo], LinkError>.self) { group in
                for adapter in adapters {
                    group.addTask {
                        do throws(LinkError) {
                            return .success(
                                try await self.discover(
                                    filter, on: adapter, stopWhen: { search.saw($0, on: adapter.address) }, timeout: timeout))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                var outcomes: [Result<[BluetoothDeviceInfo], LinkError>] = []
                for await outcome in group {
                    outcomes.append(outcome)
                    // One adapter's discovery found what was asked: the others stop.
                    if search.isDone { group.cancelAll() }
                }
                return outcomes
            }
            // An adapter's failure fails the search only when no adapter could search.
            let found = outcomes.compactMap { try? $0.get() }
            if found.isEmpty, case .failure(let error)? = outcomes.first { throw error }
            sightings = found.flatMap(\.self)
        }
        return await preferredSightings(sightings)
    }

    /// One reader per address, in the order first seen, each as seen through the adapter
    /// it is best reached on.
    private func preferredSightings(_ sightings: [BluetoothDeviceInfo]) async -> [DiscoveredReader] {
        var order: [String] = []
        var byAddress: [String: [BluetoothDeviceInfo]] = [:]
        for device in sightings {
            if byAddress[device.address] == nil { order.append(device.address) }
            byAddress[device.address, default: []].append(device)
        }
        guard byAddress.values.contains(where: { $0.count > 1 }) else {
            return order.compactMap { byAddress[$0]?.first }.map { DiscoveredReader($0, adapterAddress: adapterAddress(of: $0)) }
        }
        let load = await linksInUse()
        return order.compactMap { address -> DiscoveredReader? in
            guard let seen = byAddress[address] else { return nil }
            let device = preferredSighting(seen, load: load)
            return DiscoveredReader(device, adapterAddress: adapterAddress(of: device))
        }
    }

    /// Of one reader's sightings: the adapter connected to it, else the one it was reached
    /// on before, else the one holding its bond, else the least loaded (`load`: links in
    /// use by adapter address), the strongest signal breaking a tie.
    private func preferredSighting(_ seen: [BluetoothDeviceInfo], load: [String: Int]) -> BluetoothDeviceInfo {
        if let connected = seen.first(where: \.isConnected) { return connected }
        if let assigned = adapterOfReader[seen[0].address], let before = seen.first(where: { adapterAddress(of: $0) == assigned }) {
            return before
        }
        if let bonded = seen.first(where: \.isBonded) { return bonded }
        return seen.min { a, b in
            let (loadA, loadB) = (load[adapterAddress(of: a) ?? ""] ?? 0, load[adapterAddress(of: b) ?? ""] ?? 0)
            return loadA != loadB ? loadA < loadB : (a.rssi ?? .min) > (b.rssi ?? .min)
        } ?? seen[0]
    }

    /// Links in use on each of the fleet's adapters (by address): the devices BlueZ has
    /// connected there, and the fleet's readers assigned to it that are not connected yet.
    private func linksInUse() async -> [String: Int] {
        var load: [String: Int] = [:]
        for address in adapterAddresses {
            let adapter = try? await session.adapter(named: address)
            let connected = (try? await adapter?.knownDevices().filter(\.isConnected).map(\.address)) ?? []
            let assigned = adapterOfReader.filter { $0.value == address }.keys
            load[address] = Set(connected).union(assigned).count
        }
        return load
    }

    /// The address of the fleet's adapter `device` was seen on.
    private func adapterAddress(of device: BluetoothDeviceInfo) -> String? {
        guard let path = device.adapterPath else { return nil }
        return adapterPaths[path]
    }

    /// The fleet's adapters' object paths as last looked up, to their addresses.
    private var adapterPaths: [DBusObjectPath: String] = [:]

    /// A discovery on `adapter`, after any other the fleet runs on it.
    private func discover(
        _ filter: DiscoveryFilter, on adapter: BluetoothAdapter, stopWhen done: ([BluetoothDeviceInfo]) -> Bool,
        timeout: Duration
    ) async throws(LinkError) -> [BluetoothDeviceInfo] {
        adapterPaths[adapter.path] = adapter.address
        await takeDiscovery(on: adapter.address)
        defer { discoveryGates[adapter.address]?.release() }
        do throws(BluetoothError) {
            return try await adapter.scan(filter, timeout: timeout, until: done)
        } catch {
            throw LinkError(error)
        }
    }

    private func takeDiscovery(on adapter: String) async {
        guard discoveryGates[adapter, default: CommandGate()].tryAcquire() == false else { return }
        let ticket = discoveryGates[adapter, default: CommandGate()].takeTicket()
        _ = await withCheckedContinuation { discoveryGates[adapter, default: CommandGate()].enqueue(ticket, $0) }
    }
}

/// What several adapters' discoveries have seen between them, and whether that is what
/// the search asked for. Each discovery calls ``saw(_:on:)`` on the fleet's actor (its
/// `stopWhen` runs there), so one call at a time: hence unchecked.
private final class SharedSearch: @unchecked Sendable {
    private let done: ([BluetoothDeviceInfo]) -> Bool
    /// What each adapter's discovery has seen so far, by adapter address.
    private var seen: [String: [BluetoothDeviceInfo]] = [:]
    private(set) var isDone = false

    init(done: @escaping ([BluetoothDeviceInfo]) -> Bool) { self.done = done }

    /// The discovery on `adapter` has seen `devices`: whether, with the others', that is
    /// what was asked for.
    func saw(_ devices: [BluetoothDeviceInfo], on adapter: String) -> Bool {
        seen[adapter] = devices
        isDone = isDone || done(seen.values.flatMap(\.self))
        return isDone
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
