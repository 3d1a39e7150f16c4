import Logging
import Synchronization

/// A running LE discovery: an `AsyncSequence` of device updates (see
/// ``BluetoothAdapter/discover(_:)``). Each element is the device's current state, so a
/// device appears again whenever its name or RSSI changes.
public final class BluetoothDiscovery: AsyncSequence, Sendable {
    public typealias Element = BluetoothDeviceInfo
    public typealias Failure = BluetoothError

    private let stream: AsyncStream<Result<BluetoothDeviceInfo, BluetoothError>>
    private let adapter: BluetoothAdapter
    private let pump: Task<Void, Never>
    private let stopped = Atomic<Bool>(false)

    private init(
        adapter: BluetoothAdapter, stream: AsyncStream<Result<BluetoothDeviceInfo, BluetoothError>>,
        pump: Task<Void, Never>
    ) {
        self.adapter = adapter
        self.stream = stream
        self.pump = pump
    }

    deinit {
        pump.cancel()
        if !stopped.load(ordering: .relaxed) {
            let adapter = adapter
            Task { await BluetoothDiscovery.stopDiscovery(on: adapter) }
        }
    }

    static func start(adapter: BluetoothAdapter, filter: DiscoveryFilter) async throws(BluetoothError)
        -> BluetoothDiscovery
    {
        let session = adapter.session
        let events = try await session.events(under: adapter.path, interfaces: [BlueZNames.deviceInterface])
        let known = try await adapter.knownDevices()
        try await session.call(
            adapter.path, BlueZNames.adapterInterface, "SetDiscoveryFilter",
            [.stringVariantDictionary(["Transport": .string("le"), "DuplicateData": .bool(true)])],
            timeout: .seconds(10), operation: "SetDiscoveryFilter on \(adapter.name)")
        do throws(BluetoothError) {
            try await session.call(
                adapter.path, BlueZNames.adapterInterface, "StartDiscovery", timeout: .seconds(10),
                operation: "StartDiscovery on \(adapter.name)")
        } catch where error.code == .inProgress {
            // This client's discovery is already running: keep using it.
        } catch where error.code == .cancelled {
            // The call may have reached bluetoothd before the caller gave up.
            await stopDiscovery(on: adapter)
            throw error
        }
        session.logger.debug("discovery started", metadata: ["adapter": "\(adapter.name)", "filter": "\(filter.summary)"])

        let (stream, continuation) = AsyncStream.makeStream(of: Result<BluetoothDeviceInfo, BluetoothError>.self)
        let pump = Task(executorPreference: session.connection.executor) {
            await DeviceTracker.follow(events: events, known: known, adapterPath: adapter.path) { update in
                switch update {
                case .success(let device) where !filter.matches(device): break
                default: continuation.yield(update)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in pump.cancel() }
        return BluetoothDiscovery(adapter: adapter, stream: stream, pump: pump)
    }

    /// Stops the discovery (`StopDiscovery`) and ends the sequence. Idempotent.
    public func stop() async {
        pump.cancel()
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        await Self.stopDiscovery(on: adapter)
    }

    /// Sent even from a cancelled task (a connect given up, Ctrl-C): else bluetoothd would
    /// go on scanning for this client.
    private static func stopDiscovery(on adapter: BluetoothAdapter) async {
        await adapter.session.cleanUp(adapter.path, BlueZNames.adapterInterface, "StopDiscovery", timeout: .seconds(5))
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Result<BluetoothDeviceInfo, BluetoothError>>.AsyncIterator

        public mutating func next() async throws(BluetoothError) -> BluetoothDeviceInfo? {
            try await base.next()?.get()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(BluetoothError)
            -> BluetoothDeviceInfo?
        {
            try await base.next(isolation: actor)?.get()
        }
    }
}
