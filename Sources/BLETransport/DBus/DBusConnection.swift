import DisabledLogging
import Logging
import Synchronization
import Timing

/// A private connection to a D-Bus message bus.
///
/// ## Threading
/// Each connection has ONE dispatch thread (``DBusDispatchLoop``) that owns the libdbus
/// connection and does all libdbus work: it opens and registers the connection, marshals
/// and sends messages, reads, dispatches and matches replies to calls by serial; a timer
/// that wakes on that thread enforces call deadlines. Public methods may be called from any task or thread; they validate
/// input in Swift, then hand a command to the dispatch thread through a mutex-protected
/// queue plus a wake-up pipe, and `await` a continuation — no blocking call ever runs on
/// Swift's cooperative pool. Call deadlines run on the clock given at connection
/// (`ContinuousClock` by default; a test's `ManualClock`). Results come back as ``DBusMessage`` values (never libdbus
/// pointers). Incoming method calls for exported objects are routed on a separate task
/// and run per object in arrival order (see ``export(_:interfaces:)``).
///
/// When the bus goes away, pending calls fail with ``DBusError/disconnected(_:)``, all
/// signal streams finish and later calls fail immediately. ``close()`` stops the thread
/// and waits for it to exit. Dropping the last reference also stops the thread.
public final class DBusConnection: Sendable {
    /// The default deadline of method calls (libdbus' own default is 25 s).
    public static let defaultTimeout: Duration = .seconds(25)

    /// The unique bus name of this connection (`:1.42`).
    public let uniqueName: String
    /// Whether unix fds can be passed on this connection (negotiated at authentication).
    public let canPassUnixFDs: Bool

    let loop: DBusDispatchLoop
    let objects: DBusObjectRegistry
    let logger: Logger
    private let nextSubscriptionID = Atomic<UInt64>(1)

    private init(loop: DBusDispatchLoop, info: DBusConnectInfo, logger: Logger) {
        self.loop = loop
        self.uniqueName = info.uniqueName
        self.canPassUnixFDs = info.canPassUnixFDs
        self.logger = logger
        self.objects = DBusObjectRegistry(loop: loop, logger: logger)
        let objects = self.objects
        let calls = loop.incomingCalls
        // The router: takes incoming method calls in arrival order and hands each to the
        // worker of its object. Ends when the dispatch thread finishes the stream.
        Task(executorPreference: loop) {
            for await call in calls { objects.route(call) }
            objects.close()
        }
    }

    deinit {
        loop.perform { $0.requestStop() }
    }

    /// Connects to the system bus (honouring `DBUS_SYSTEM_BUS_ADDRESS`) on a private
    /// connection. Call deadlines run on `clock`.
    public static func systemBus(
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger = .disabled
    ) async throws(DBusError) -> DBusConnection {
        let (loop, info) = try await DBusDispatchLoop.start(.systemBus, clock: ElapsedClock(clock), logger: logger)
        return DBusConnection(loop: loop, info: info, logger: logger)
    }

    /// Connects to the bus at `address` (e.g. `unix:path=/run/dbus/system_bus_socket`) on
    /// a private connection and registers with it (`Hello`). Call deadlines run on `clock`.
    public static func connect(
        address: String, clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .disabled
    ) async throws(DBusError) -> DBusConnection {
        guard DBusNameValidation.isValidString(address), !address.isEmpty else {
            throw .connectionFailed(name: "address", message: "invalid address")
        }
        let (loop, info) = try await DBusDispatchLoop.start(.address(address), clock: ElapsedClock(clock), logger: logger)
        return DBusConnection(loop: loop, info: info, logger: logger)
    }

    /// The clock the connection's call deadlines run on, for the layers above that wait
    /// on the same time (BlueZ connections).
    package var clock: ElapsedClock { loop.clock }

    /// The connection's dispatch thread as a task executor. A task that makes many calls
    /// or follows signals runs here with `withTaskExecutorPreference(_:operation:)`: a
    /// reply or signal then resumes it on the thread that read it, with no thread switch,
    /// as a blocking libdbus call would. Its work must not block; once the connection has
    /// closed, its jobs run on the global executor.
    public var executor: any TaskExecutor { loop }

    /// Whether the connection is still open.
    public var isConnected: Bool { !loop.isTerminated }

    /// Closes the connection: pending calls fail with ``DBusError/disconnected(_:)``,
    /// signal streams finish, exported objects stop; returns after the dispatch thread
    /// has exited.
    public func close() async {
        loop.perform { $0.requestStop() }
        await loop.waitForTermination()
        objects.close()
    }

    /// Returns when the connection has closed or was lost, with the reason.
    public func waitUntilClosed() async -> String {
        await loop.waitForTermination()
        return loop.terminationReason
    }

    // MARK: Method calls

    /// Calls a method and returns the reply message.
    ///
    /// Throws ``DBusError/remote(name:message:)`` for an error reply,
    /// ``DBusError/timeout(_:)`` when no reply arrived within `timeout`,
    /// ``DBusError/cancelled`` when the calling task is cancelled (a late reply is then
    /// dropped), ``DBusError/disconnected(_:)`` when the connection is or gets lost.
    public func call(_ message: DBusMessage, timeout: Duration = DBusConnection.defaultTimeout)
        async throws(DBusError) -> DBusMessage
    {
        try await call(message, timeout: timeout, afterQueuedCommands: false)
    }

    /// With `afterQueuedCommands`, the call leaves from the dispatch thread after the
    /// commands queued before it (a subscription registered before its AddMatch is sent);
    /// otherwise from the calling thread at once.
    func call(_ message: DBusMessage, timeout: Duration, afterQueuedCommands: Bool) async throws(DBusError)
        -> DBusMessage
    {
        var message = message
        guard message.kind == .methodCall else { throw .marshalling("call() needs a method call message") }
        message.noReplyExpected = false
        try message.validate()
        if !canPassUnixFDs && message.body.contains(where: \.containsUnixFD) {
            throw .marshalling("unix fd passing is not supported on this connection")
        }
        if Task.isCancelled { throw .cancelled }
        let call = DBusPendingCall(message, timeout: timeout, now: loop.clock.elapsed())
        let loop = self.loop
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                call.install(continuation)
                if !afterQueuedCommands {
                    loop.sendCall(message, call)
                } else if !loop.perform({ [message] in $0.sendCall(message, call) }) {
                    call.finish(.failure(.disconnected(loop.terminationReason)))
                }
            }
        } onCancel: {
            if call.finish(.failure(.cancelled)) { loop.forget(call) }
        }
        return try result.get()
    }

    /// Calls a method and returns the body of the reply.
    public func call(
        destination: String?, path: DBusObjectPath, interface: String?, member: String,
        body: [DBusValue] = [], timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [DBusValue] {
        try await call(
            .methodCall(destination: destination, path: path, interface: interface, member: member, body: body),
            timeout: timeout
        ).body
    }

    /// Sends a message without waiting for anything (signals, calls with
    /// `noReplyExpected`). Throws for invalid messages or a closed connection.
    public func send(_ message: DBusMessage) throws(DBusError) {
        try message.validate()
        if !canPassUnixFDs && message.body.contains(where: \.containsUnixFD) {
            throw .marshalling("unix fd passing is not supported on this connection")
        }
        try loop.send(message)
    }

    /// Emits a signal from `path`.
    public func emitSignal(
        path: DBusObjectPath, interface: String, member: String, body: [DBusValue] = [], destination: String? = nil
    ) throws(DBusError) {
        try send(.signal(path: path, interface: interface, member: member, body: body, destination: destination))
    }

    // MARK: Signals

    /// Subscribes to messages matching `rule` (AddMatch at the daemon). The subscription
    /// is active when this returns, so state read afterwards cannot miss an event. The
    /// stream finishes when the connection closes or is lost; ending the iteration (or
    /// dropping the stream) removes the rule (RemoveMatch).
    public func signals(
        matching rule: DBusMatchRule,
        bufferingPolicy: AsyncStream<DBusMessage>.Continuation.BufferingPolicy = .unbounded
    ) async throws(DBusError) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self, bufferingPolicy: bufferingPolicy)
        let subscription = try await subscribe(
            matching: rule, deliver: { continuation.yield($0) }, end: { continuation.finish() })
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    /// Subscribes `deliver` to messages matching `rule` (AddMatch at the daemon): it runs
    /// on the connection's dispatch thread for each matching signal, in arrival order, and
    /// must return quickly (yield to a stream, update locked state). `end` runs once, when
    /// the subscription is cancelled or the connection ends. Active when this returns.
    package func subscribe(
        matching rule: DBusMatchRule, deliver: @escaping @Sendable (DBusMessage) -> Void,
        end: @escaping @Sendable () -> Void
    ) async throws(DBusError) -> DBusSignalSubscription {
        try rule.validate()
        let id = nextSubscriptionID.wrappingAdd(1, ordering: .relaxed).oldValue
        let loop = self.loop
        // Registered locally first, so nothing the daemon sends after AddMatch is lost.
        guard loop.perform({ $0.addSubscription(id, .init(rule: rule, deliver: deliver, end: end)) }) else {
            end()
            throw .disconnected(loop.terminationReason)
        }
        do {
            _ = try await call(
                .methodCall(
                    destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
                    member: "AddMatch", body: [.string(rule.description)]),
                timeout: Self.defaultTimeout, afterQueuedCommands: true)
        } catch {
            loop.perform { $0.removeSubscription(id, removeMatch: false) }
            throw error
        }
        return DBusSignalSubscription(loop: loop, id: id)
    }

    /// The number of live signal subscriptions (for tests and diagnostics).
    func subscriptionCount() async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            if !loop.perform({ continuation.resume(returning: $0.subscriptionCount) }) {
                continuation.resume(returning: 0)
            }
        }
    }

    // MARK: The bus daemon

    func callBus(_ member: String, _ body: [DBusValue]) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: member, body: body)
    }

    /// `RequestName` flags.
    public struct RequestNameFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let allowReplacement = RequestNameFlags(rawValue: 1)
        public static let replaceExisting = RequestNameFlags(rawValue: 2)
        public static let doNotQueue = RequestNameFlags(rawValue: 4)
    }

    /// `RequestName` results.
    public enum RequestNameReply: UInt32, Sendable {
        case primaryOwner = 1
        case inQueue = 2
        case exists = 3
        case alreadyOwner = 4
    }

    /// Requests a well-known bus name.
    public func requestName(_ name: String, flags: RequestNameFlags = [.doNotQueue]) async throws(DBusError)
        -> RequestNameReply
    {
        guard DBusNameValidation.isValidBusName(name), !name.hasPrefix(":") else {
            throw .marshalling("invalid well-known name '\(name)'")
        }
        let reply = try await callBus("RequestName", [.string(name), .uint32(flags.rawValue)])
        guard let code = reply.first?.uint32Value, let result = RequestNameReply(rawValue: code) else {
            throw .marshalling("unexpected RequestName reply")
        }
        return result
    }

    /// Releases a well-known bus name; returns the daemon's result code
    /// (1 released, 2 non-existent, 3 not owner).
    @discardableResult
    public func releaseName(_ name: String) async throws(DBusError) -> UInt32 {
        guard DBusNameValidation.isValidBusName(name) else { throw .marshalling("invalid bus name '\(name)'") }
        let reply = try await callBus("ReleaseName", [.string(name)])
        guard let code = reply.first?.uint32Value else { throw .marshalling("unexpected ReleaseName reply") }
        return code
    }

    /// The names currently on the bus.
    public func listNames() async throws(DBusError) -> [String] {
        guard let names = try await callBus("ListNames", []).first?.stringArrayValue else {
            throw .marshalling("unexpected ListNames reply")
        }
        return names
    }

    /// The process ID of the connection owning `name` (`GetConnectionUnixProcessID`).
    public func processID(of name: String) async throws(DBusError) -> UInt32 {
        guard DBusNameValidation.isValidBusName(name) else { throw .marshalling("invalid bus name '\(name)'") }
        guard let pid = try await callBus("GetConnectionUnixProcessID", [.string(name)]).first?.uint32Value else {
            throw .marshalling("unexpected GetConnectionUnixProcessID reply")
        }
        return pid
    }

    /// The unique name owning `name`; throws `org.freedesktop.DBus.Error.NameHasNoOwner`
    /// as ``DBusError/remote(name:message:)`` when nobody owns it.
    public func nameOwner(_ name: String) async throws(DBusError) -> String {
        guard DBusNameValidation.isValidBusName(name) else { throw .marshalling("invalid bus name '\(name)'") }
        guard let owner = try await callBus("GetNameOwner", [.string(name)]).first?.stringValue else {
            throw .marshalling("unexpected GetNameOwner reply")
        }
        return owner
    }
}
