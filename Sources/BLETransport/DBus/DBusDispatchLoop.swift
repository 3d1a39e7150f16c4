internal import CDBus
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where to connect.
enum DBusConnectTarget: Sendable {
    case systemBus
    case address(String)
}

struct DBusConnectInfo: Sendable {
    var uniqueName: String
    var canPassUnixFDs: Bool
}

/// The dispatch thread of one connection and all libdbus state it owns.
///
/// Thread/actor boundary:
/// - Everything in the "thread-confined" section (the libdbus connection, pending calls,
///   subscriptions) is touched only by the dispatch thread. libdbus messages never leave
///   it: they are converted to/from ``DBusMessage`` values there.
/// - Other threads talk to the loop only through ``enqueue(_:)``: it appends a command
///   (a closure run on the dispatch thread) to a mutex-protected queue and writes a byte
///   to a wake-up pipe that the thread polls alongside the connection's socket.
/// - Results go back by resuming continuations (``DBusPendingCall``) and yielding to
///   `AsyncStream` continuations, both of which are thread-safe.
final class DBusDispatchLoop: @unchecked Sendable {
    typealias Command = @Sendable (DBusDispatchLoop) -> Void

    struct Subscription {
        var rule: DBusMatchRule
        var continuation: AsyncStream<DBusMessage>.Continuation
    }

    // MARK: Shared state (mutex-protected, any thread)

    private struct Shared {
        var commands: [Command] = []
        var terminated = false
        var terminationReason: String?
        var terminationWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let shared = Locked(Shared())
    private let wakeRead: Int32
    private let wakeWrite: Int32
    let logger: Logger

    /// Incoming method calls, in arrival order, for the object router.
    let incomingCalls: AsyncStream<DBusMessage>
    private let incomingContinuation: AsyncStream<DBusMessage>.Continuation

    // MARK: Thread-confined state (dispatch thread only)

    private var connection: OpaquePointer?
    private var canPassUnixFDs = false
    private var pending: [UInt32: DBusPendingCall] = [:]
    private var subscriptions: [UInt64: Subscription] = [:]
    /// Replies to calls the loop makes for itself (GetNameOwner), handled in order with
    /// signals.
    private var internalReplies: [UInt32: (DBusMessage) -> Void] = [:]
    /// Well-known names used as `sender` in subscriptions (with a use count) and their
    /// current owners.
    private var trackedNames: [String: Int] = [:]
    private var nameOwners: [String: String] = [:]
    private var stopRequested = false
    private var lostConnection = false

    private init(logger: Logger) throws(DBusError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw .connectionFailed(name: "pipe", message: "cannot create wake-up pipe: errno \(errno)")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.logger = logger
        (incomingCalls, incomingContinuation) = AsyncStream.makeStream(of: DBusMessage.self)
    }

    /// Loads libdbus if need be, then starts the dispatch thread, which opens and
    /// registers the connection (blocking libdbus calls happen there, never on the
    /// cooperative pool).
    static func start(_ target: DBusConnectTarget, logger: Logger) async throws(DBusError)
        -> (DBusDispatchLoop, DBusConnectInfo)
    {
        do {
            try DBusLibrary.require()
        } catch {
            throw .libraryUnavailable(error)
        }
        let loop = try DBusDispatchLoop(logger: logger)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<DBusConnectInfo, DBusError>, Never>) in
            let started = DedicatedThread.start {
                loop.run(target) { continuation.resume(returning: $0) }
            }
            if !started {
                let reason = "the system refused a thread for the connection"
                loop.terminate(reason: reason)
                continuation.resume(returning: .failure(.connectionFailed(name: "pthread_create", message: reason)))
            }
        }
        return (loop, try result.get())
    }

    // MARK: Any thread

    /// Queues `command` for the dispatch thread. Returns false (and drops the command)
    /// when the loop has terminated.
    @discardableResult
    func enqueue(_ command: @escaping Command) -> Bool {
        shared.withLock { shared in
            guard !shared.terminated else { return false }
            shared.commands.append(command)
            // Written under the lock so the pipe cannot be closed in between; the pipe is
            // non-blocking and a full pipe already guarantees a wake-up.
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            return true
        }
    }

    var isTerminated: Bool { shared.withLock { $0.terminated } }

    var terminationReason: String {
        shared.withLock { $0.terminationReason } ?? "connection closed"
    }

    /// Waits until the dispatch thread has finished (the "join").
    func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyDone = shared.withLock { shared -> Bool in
                if shared.terminated { return true }
                shared.terminationWaiters.append(continuation)
                return false
            }
            if alreadyDone { continuation.resume() }
        }
    }

    // MARK: Commands (dispatch thread)

    func requestStop() {
        stopRequested = true
    }

    /// Sends a message now; returns its serial.
    @discardableResult
    func sendNow(_ message: DBusMessage) throws(DBusError) -> UInt32 {
        guard let connection, !lostConnection else { throw .disconnected(terminationReason) }
        if !canPassUnixFDs && message.body.contains(where: \.containsUnixFD) {
            throw .marshalling("unix fd passing is not supported on this connection")
        }
        let raw = try DBusMarshalling.makeMessage(message)
        defer { dbus_message_unref(raw) }
        var serial: UInt32 = 0
        guard dbus_connection_send(connection, raw, &serial) != 0 else {
            throw .marshalling("out of memory while queueing a message")
        }
        if logger.logLevel <= .trace {
            var sent = message
            sent.serial = serial
            logger.trace("D-Bus send \(sent.logDescription)")
        }
        return serial
    }

    /// Sends a method call and registers it for its reply (matched by serial in the filter).
    func startCall(_ message: DBusMessage, _ call: DBusPendingCall) {
        guard !call.isFinished else { return }
        do {
            let serial = try sendNow(message)
            pending[serial] = call
        } catch {
            call.finish(.failure(error))
        }
    }

    /// Drops a call that finished elsewhere (cancelled); a late reply is then ignored.
    func forget(_ call: DBusPendingCall) {
        if let serial = pending.first(where: { $0.value === call })?.key {
            pending[serial] = nil
        }
    }

    var subscriptionCount: Int { subscriptions.count }

    func addSubscription(_ id: UInt64, _ subscription: Subscription) {
        guard connection != nil, !lostConnection else {
            subscription.continuation.finish()
            return
        }
        subscriptions[id] = subscription
        if let name = subscription.rule.wellKnownSender { trackName(name) }
    }

    /// Starts following the owner of `name`: NameOwnerChanged match first, then
    /// GetNameOwner; the daemon answers in order, so the owner is known before any signal
    /// matching the subscriber's own (later) AddMatch arrives.
    private func trackName(_ name: String) {
        trackedNames[name, default: 0] += 1
        guard trackedNames[name] == 1 else { return }
        var addMatch = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "AddMatch", body: [.string(DBusMatchRule.nameOwnerChanged(name: name).description)])
        addMatch.noReplyExpected = true
        let getOwner = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "GetNameOwner", body: [.string(name)])
        do {
            try sendNow(addMatch)
            let serial = try sendNow(getOwner)
            internalReplies[serial] = { [unowned self] reply in
                guard self.trackedNames[name] != nil else { return }
                if reply.kind == .methodReturn, let owner = reply.body.first?.stringValue {
                    self.nameOwners[name] = owner
                } else {
                    self.nameOwners[name] = nil
                }
            }
        } catch {
            logger.debug("D-Bus cannot track the owner of \(name): \(error)")
        }
    }

    private func untrackName(_ name: String) {
        guard let count = trackedNames[name] else { return }
        if count > 1 {
            trackedNames[name] = count - 1
            return
        }
        trackedNames[name] = nil
        nameOwners[name] = nil
        guard connection != nil, !lostConnection else { return }
        var removeMatch = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "RemoveMatch", body: [.string(DBusMatchRule.nameOwnerChanged(name: name).description)])
        removeMatch.noReplyExpected = true
        _ = try? sendNow(removeMatch)
    }

    /// Removes a subscription and, if `removeMatch`, drops its rule at the daemon
    /// (fire-and-forget RemoveMatch).
    func removeSubscription(_ id: UInt64, removeMatch: Bool) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        subscription.continuation.finish()
        if let name = subscription.rule.wellKnownSender { untrackName(name) }
        guard removeMatch, connection != nil, !lostConnection else { return }
        var message = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "RemoveMatch", body: [.string(subscription.rule.description)])
        message.noReplyExpected = true
        do {
            try sendNow(message)
        } catch {
            logger.debug("RemoveMatch failed: \(error)")
        }
    }

    // MARK: The thread

    private func run(_ target: DBusConnectTarget, onReady: (Result<DBusConnectInfo, DBusError>) -> Void) {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }

        var opened: OpaquePointer?
        switch target {
        case .systemBus:
            opened = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .address(let address):
            opened = dbus_connection_open_private(address, &error)
            if let connection = opened {
                dbus_connection_set_exit_on_disconnect(connection, 0)
                if dbus_bus_register(connection, &error) == 0 {
                    dbus_connection_close(connection)
                    dbus_connection_unref(connection)
                    opened = nil
                }
            }
        }
        guard let connection = opened else {
            let name = error.name.map { String(cString: $0) } ?? "unknown"
            let message = error.message.map { String(cString: $0) } ?? ""
            let reason = "\(name): \(message)"
            logger.debug("D-Bus connect failed: \(reason)")
            terminate(reason: reason)
            onReady(.failure(.connectionFailed(name: name, message: message)))
            return
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
        canPassUnixFDs = dbus_connection_can_send_type(connection, DBusTypeCode.unixFD) != 0
        let uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        var socket: Int32 = -1
        let haveSocket = dbus_connection_get_socket(connection, &socket) != 0 && socket >= 0
        let userData = Unmanaged.passUnretained(self).toOpaque()
        guard haveSocket, dbus_connection_add_filter(connection, dbusFilterFunction, userData, nil) != 0 else {
            closeConnection()
            terminate(reason: "cannot set up the connection")
            onReady(.failure(.connectionFailed(name: "setup", message: "cannot get the socket or add a filter")))
            return
        }
        logger.debug("D-Bus connected as \(uniqueName) (unix fds: \(canPassUnixFDs))")
        onReady(.success(DBusConnectInfo(uniqueName: uniqueName, canPassUnixFDs: canPassUnixFDs)))

        let reason = loop(connection: connection, socket: socket)
        logger.debug("D-Bus dispatch thread stopping: \(reason)")
        if !lostConnection && dbus_connection_get_is_connected(connection) != 0 {
            // A clean close: write out what was queued before it (signals, replies).
            // Blocks only this thread, and only while the daemon reads.
            dbus_connection_flush(connection)
        }
        dbus_connection_remove_filter(connection, dbusFilterFunction, userData)
        closeConnection()
        failEverything(reason: reason)
        terminate(reason: reason)
    }

    private func loop(connection: OpaquePointer, socket: Int32) -> String {
        var pollFDs = [
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            runCommands()
            if stopRequested { return "connection closed" }
            // Level-triggered: read and write what is possible without blocking, then
            // dispatch until the incoming queue is empty.
            let connected = dbus_connection_read_write(connection, 0) != 0
            while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
            if !connected || lostConnection || dbus_connection_get_is_connected(connection) == 0 {
                lostConnection = true
                return "the bus connection was lost"
            }
            expireDeadlines()
            let wantsWrite = dbus_connection_has_messages_to_send(connection) != 0
            pollFDs[1].events = Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0)
            pollFDs[0].revents = 0
            pollFDs[1].revents = 0
            let result = poll(&pollFDs, 2, nextPollTimeout())
            if result < 0 && errno != EINTR {
                lostConnection = true
                return "poll failed: errno \(errno)"
            }
            if pollFDs[0].revents != 0 { drainWakePipe() }
        }
    }

    private func runCommands() {
        let commands = shared.withLock { shared -> [Command] in
            let commands = shared.commands
            shared.commands.removeAll()
            return commands
        }
        for command in commands { command(self) }
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func expireDeadlines() {
        guard !pending.isEmpty else { return }
        let now = ContinuousClock.now
        for (serial, call) in pending where call.isFinished || call.deadline <= now {
            pending[serial] = nil
            call.finish(.failure(.timeout(call.callDescription)))
        }
    }

    private func nextPollTimeout() -> Int32 {
        guard let deadline = pending.values.map(\.deadline).min() else { return -1 }
        let remaining = deadline - ContinuousClock.now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
        return Int32(clamping: milliseconds)
    }

    private func closeConnection() {
        guard let connection else { return }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        self.connection = nil
    }

    private func failEverything(reason: String) {
        lostConnection = true
        let calls = pending.values
        pending.removeAll()
        for call in calls { call.finish(.failure(.disconnected(reason))) }
        let streams = subscriptions.values.map(\.continuation)
        subscriptions.removeAll()
        internalReplies.removeAll()
        trackedNames.removeAll()
        nameOwners.removeAll()
        for stream in streams { stream.finish() }
        incomingContinuation.finish()
    }

    private func terminate(reason: String) {
        lostConnection = true
        let (leftovers, waiters) = shared.withLock { shared in
            shared.terminated = true
            shared.terminationReason = reason
            let result = (shared.commands, shared.terminationWaiters)
            shared.commands.removeAll()
            shared.terminationWaiters.removeAll()
            return result
        }
        // Commands queued before termination run against the dead loop and fail their
        // callers with `.disconnected`.
        for command in leftovers { command(self) }
        close(wakeRead)
        close(wakeWrite)
        incomingContinuation.finish()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Incoming messages (dispatch thread, from the libdbus filter)

    fileprivate func handle(_ raw: OpaquePointer) -> DBusHandlerResult {
        switch dbus_message_get_type(raw) {
        case DBusTypeCode.messageTypeMethodReturn, DBusTypeCode.messageTypeError:
            let replySerial = dbus_message_get_reply_serial(raw)
            if let internalHandler = internalReplies.removeValue(forKey: replySerial) {
                if let reply = try? DBusMarshalling.decodeMessage(raw) { internalHandler(reply) }
                return DBUS_HANDLER_RESULT_HANDLED
            }
            guard let call = pending.removeValue(forKey: replySerial) else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
            do {
                let reply = try DBusMarshalling.decodeMessage(raw)
                logger.trace("D-Bus receive \(reply.logDescription)")
                if reply.kind == .error {
                    call.finish(.failure(.remote(
                        name: reply.errorName ?? DBusErrorName.failed,
                        message: reply.body.first?.stringValue ?? "")))
                } else {
                    call.finish(.success(reply))
                }
            } catch {
                call.finish(.failure(error))
            }
            return DBUS_HANDLER_RESULT_HANDLED

        case DBusTypeCode.messageTypeSignal:
            let header = DBusMarshalling.decodeHeader(raw)
            if header.path == DBusStandard.localPath, header.interface == DBusStandard.localInterface,
                header.member == "Disconnected"
            {
                lostConnection = true
                return DBUS_HANDLER_RESULT_HANDLED
            }
            guard !subscriptions.isEmpty else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let signal: DBusMessage
            do {
                signal = try DBusMarshalling.decodeMessage(raw)
            } catch {
                logger.debug("D-Bus dropping undecodable signal \(header.logDescription): \(error)")
                return DBUS_HANDLER_RESULT_HANDLED
            }
            logger.trace("D-Bus receive \(signal.logDescription)")
            if signal.sender == DBusStandard.busName, signal.interface == DBusStandard.busInterface,
                signal.member == "NameOwnerChanged", signal.body.count == 3,
                case .string(let name) = signal.body[0], trackedNames[name] != nil
            {
                let newOwner = signal.body[2].stringValue ?? ""
                nameOwners[name] = newOwner.isEmpty ? nil : newOwner
            }
            for id in subscriptions.keys.sorted() {
                guard let subscription = subscriptions[id], subscription.rule.matches(signal, owners: nameOwners)
                else { continue }
                subscription.continuation.yield(signal)
            }
            return DBUS_HANDLER_RESULT_HANDLED

        case DBusTypeCode.messageTypeMethodCall:
            do {
                let call = try DBusMarshalling.decodeMessage(raw)
                logger.trace("D-Bus receive \(call.logDescription)")
                incomingContinuation.yield(call)
            } catch {
                let header = DBusMarshalling.decodeHeader(raw)
                if !header.noReplyExpected {
                    _ = try? sendNow(header.errorReply(name: DBusErrorName.invalidArgs, message: "\(error)"))
                }
            }
            return DBUS_HANDLER_RESULT_HANDLED

        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }
}

/// The libdbus filter: runs on the dispatch thread inside `dbus_connection_dispatch`.
private let dbusFilterFunction: DBusHandleMessageFunction = { _, message, userData in
    guard let message, let userData else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let loop = Unmanaged<DBusDispatchLoop>.fromOpaque(userData).takeUnretainedValue()
    return loop.handle(message)
}
