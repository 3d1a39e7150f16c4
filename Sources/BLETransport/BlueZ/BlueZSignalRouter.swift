import Locking

/// The one place a ``BluetoothSession`` receives BlueZ's signals: a single match rule for
/// everything `org.bluez` emits plus one for its owner changing, whose handler runs on
/// the D-Bus dispatch thread and hands each signal to the routes of the object it
/// concerns, in the order bluetoothd sent them.
///
/// A route covers an object and everything below it (a device and its characteristics,
/// an adapter and its devices), optionally only some interfaces. A signal is matched by
/// the object it is about: the emitting path for `PropertiesChanged`, the added or removed
/// object for `InterfacesAdded`/`InterfacesRemoved`. bluetoothd changing owner goes to
/// every route, since every object path from before is then gone.
///
/// A route's `deliver` runs on the dispatch thread outside the router's lock, one signal
/// after another. Delivering resumes tasks (a stream's consumer), and the runtime resumes a
/// task under that task's own status lock, the lock it also holds while it runs the task's
/// cancellation handlers; a consumer cancelled at that moment ends its stream, and the
/// stream's end cancels its route, which takes the router's lock. Delivering under the
/// router's lock would deadlock those two threads: the dispatch thread would read the bus
/// no more, and every call's reply and deadline would wait for it. So a delivery can come
/// just after its route was cancelled; a finished stream drops it. `end` runs outside the
/// lock too.
final class BlueZSignalRouter: Sendable {
    typealias Deliver = @Sendable (BlueZEvent) -> Void

    private struct Route {
        var id: UInt64
        var root: DBusObjectPath
        var interfaces: Set<String>?
        var deliver: Deliver
        var end: @Sendable () -> Void

        func wants(_ event: BlueZEvent) -> Bool {
            switch event {
            case .propertiesChanged(let change):
                return root.contains(change.path) && interfaces.map { $0.contains(change.interface) } ?? true
            case .interfacesAdded(let added):
                return root.contains(added.objectPath)
                    && interfaces.map { !$0.isDisjoint(with: added.interfaces.keys) } ?? true
            case .interfacesRemoved(let removed):
                return root.contains(removed.objectPath)
                    && interfaces.map { !$0.isDisjoint(with: removed.interfaces) } ?? true
            case .ownerChanged:
                return true
            }
        }
    }

    private enum Lifecycle {
        case idle
        case starting(Task<Result<[DBusSignalSubscription], DBusError>, Never>)
        case running([DBusSignalSubscription])
        case ended
    }

    private struct State {
        var routes: [Route] = []
        var nextID: UInt64 = 1
        var lifecycle = Lifecycle.idle
    }

    private let connection: DBusConnection
    private let state = Locked(State())

    init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Routes the signals about `root` and the objects below it (of `interfaces` only,
    /// when given) to `deliver`, on the dispatch thread, until the returned route is
    /// cancelled; `end` runs when the bus connection ends first. Active on return, so
    /// state read afterwards misses nothing.
    func route(
        under root: DBusObjectPath, interfaces: Set<String>? = nil, deliver: @escaping Deliver,
        end: @escaping @Sendable () -> Void
    ) async throws(BluetoothError) -> BlueZSignalRoute {
        try await start()
        let id = state.withLock { state -> UInt64? in
            guard case .running = state.lifecycle else { return nil }
            defer { state.nextID += 1 }
            state.routes.append(Route(id: state.nextID, root: root, interfaces: interfaces, deliver: deliver, end: end))
            return state.nextID
        }
        guard let id else {
            end()
            throw BluetoothError(.disconnected(connection.loop.terminationReason), operation: "following BlueZ's signals")
        }
        return BlueZSignalRoute(router: self, id: id)
    }

    /// The same as a stream: it finishes when the bus connection ends; dropping it
    /// cancels the route.
    func events(under root: DBusObjectPath, interfaces: Set<String>? = nil) async throws(BluetoothError)
        -> AsyncStream<BlueZEvent>
    {
        let (stream, continuation) = AsyncStream.makeStream(of: BlueZEvent.self)
        let route = try await route(
            under: root, interfaces: interfaces, deliver: { continuation.yield($0) }, end: { continuation.finish() })
        continuation.onTermination = { _ in route.cancel() }
        return stream
    }

    func remove(_ id: UInt64) {
        state.withLock { $0.routes.removeAll { $0.id == id } }
    }

    /// Subscribes once per connection; concurrent first callers share the attempt.
    private func start() async throws(BluetoothError) {
        let task = state.withLock { state -> Task<Result<[DBusSignalSubscription], DBusError>, Never>? in
            switch state.lifecycle {
            case .running, .ended: return nil
            case .starting(let task): return task
            case .idle:
                let connection = self.connection
                let task = Task { [weak self] () -> Result<[DBusSignalSubscription], DBusError> in
                    let deliver: @Sendable (DBusMessage) -> Void = { [weak self] in self?.dispatch($0) }
                    let end: @Sendable () -> Void = { [weak self] in self?.endAll() }
                    do throws(DBusError) {
                        let owner = try await connection.subscribe(
                            matching: .nameOwnerChanged(name: BlueZNames.service), deliver: deliver, end: end)
                        do throws(DBusError) {
                            let bluez = try await connection.subscribe(
                                matching: DBusMatchRule(sender: BlueZNames.service), deliver: deliver, end: end)
                            return .success([owner, bluez])
                        } catch {
                            owner.cancel()
                            throw error
                        }
                    } catch {
                        return .failure(error)
                    }
                }
                state.lifecycle = .starting(task)
                return task
            }
        }
        guard let task else { return }
        let result = await task.value
        state.withLock { state in
            guard case .starting = state.lifecycle else { return }
            switch result {
            case .success(let subscriptions): state.lifecycle = .running(subscriptions)
            case .failure: state.lifecycle = .idle
            }
        }
        if case .failure(let error) = result {
            throw BluetoothError(error, operation: "subscribing to BlueZ signals")
        }
    }

    /// Runs on the dispatch thread for every signal of the two rules: delivers outside the
    /// lock (see the type's note), in the order the routes were made.
    private func dispatch(_ message: DBusMessage) {
        guard let event = BlueZEvent(message) else { return }
        let recipients = state.withLock { state in state.routes.filter { $0.wants(event) }.map(\.deliver) }
        for deliver in recipients { deliver(event) }
    }

    /// The bus connection ended: every route ends, and later routes fail.
    private func endAll() {
        let ended = state.withLock { state -> [Route] in
            if case .ended = state.lifecycle { return [] }
            state.lifecycle = .ended
            defer { state.routes.removeAll() }
            return state.routes
        }
        for route in ended { route.end() }
    }

    deinit {
        if case .running(let subscriptions) = state.withLock({ $0.lifecycle }) {
            for subscription in subscriptions { subscription.cancel() }
        }
    }
}

/// A route of ``BlueZSignalRouter``; ``cancel()`` stops its deliveries (one already under
/// way on the dispatch thread still arrives).
struct BlueZSignalRoute: Sendable {
    let router: BlueZSignalRouter
    let id: UInt64

    func cancel() {
        router.remove(id)
    }
}
