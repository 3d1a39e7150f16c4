internal import CDBus
import Locking
import Logging
@_spi(Timers) import Timing

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
/// - Everything in the "thread-confined" section (subscriptions, tracked names, watched
///   sockets) is touched only by the dispatch thread, which alone reads the connection and
///   dispatches what arrives.
/// - A method call is the one exception, because its latency is the caller's: the calling
///   thread marshals it and writes it with `dbus_connection_send` (libdbus locks its
///   connections), registering it in ``Outbound`` under the same lock, so its reply, read
///   on the dispatch thread, always finds it. The dispatch thread is woken only to write
///   what libdbus could not. Its deadline goes into ``Outbound/deadlines``, on ``clock``:
///   a timer task, which wakes on this thread, fails the calls whose deadline passed.
/// - Everything else reaches the loop through ``perform(_:)``: it appends a command
///   (a closure run on the dispatch thread) to a mutex-protected queue and, if the thread
///   sleeps, writes a byte to a wake-up pipe that it polls alongside the connection's
///   socket. Jobs of tasks that prefer the loop as their executor queue the same way.
/// - Results go back by resuming continuations (``DBusPendingCall``) and yielding to
///   `AsyncStream` continuations, both of which are thread-safe.
final class DBusDispatchLoop: @unchecked Sendable {
    typealias Command = @Sendable (DBusDispatchLoop) -> Void

    /// A match rule and what to do with the signals it matches. Both closures run on the
    /// dispatch thread, in arrival order: they must be short and must not block.
    struct Subscription {
        var rule: DBusMatchRule
        var deliver: @Sendable (DBusMessage) -> Void
        /// Runs once when the subscription ends (removed, or the connection closed).
        var end: @Sendable () -> Void
    }

    // MARK: Shared state (mutex-protected, any thread)

    /// What the dispatch thread runs, in the order it was queued: the loop's own commands,
    /// and jobs of tasks that prefer this loop as their executor (see
    /// `DBusDispatchLoop+Executor.swift`).
    enum Work {
        case command(Command)
        case job(UnownedJob)
    }

    private struct Shared {
        var work: [Work] = []
        /// The thread is about to poll, or polling, with nothing queued: queueing work must
        /// wake it. While it is awake it finds new work before it polls again, so queueing
        /// costs no system call.
        var sleeping = false
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
    let incomingContinuation: AsyncStream<DBusMessage>.Continuation

    // MARK: Method calls (mutex-protected, any thread)

    /// The connection as callers' threads use it, and the calls awaiting replies.
    struct Outbound: @unchecked Sendable {
        /// Nil before the connection opens and once it is closed.
        var connection: OpaquePointer?
        var pending: [UInt32: DBusPendingCall] = [:]
        /// The pending calls' deadlines, by serial, and the timers that wake for them.
        var deadlines = Timeline<UInt32>()
        var canPassUnixFDs = false
    }

    let outbound = Locked(Outbound())
    /// What call deadlines are measured on.
    let clock: ElapsedClock

    // MARK: Thread-confined state (dispatch thread only)

    var connection: OpaquePointer?
    var subscriptions: [UInt64: Subscription] = [:]
    /// Replies to calls the loop makes for itself (GetNameOwner), handled in order with
    /// signals.
    var internalReplies: [UInt32: (DBusMessage) -> Void] = [:]
    /// Well-known names used as `sender` in subscriptions (with a use count) and their
    /// current owners.
    var trackedNames: [String: Int] = [:]
    var nameOwners: [String: String] = [:]
    /// Sockets polled beside the bus (acquired GATT sockets), by descriptor.
    var watches: [Int32: FileWatch] = [:]
    var watchesChanged = false
    private var runnableWork: [Work] = []
    var stopRequested = false
    var lostConnection = false

    private init(clock: ElapsedClock, logger: Logger) throws(DBusError) {
        self.clock = clock
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
    static func start(_ target: DBusConnectTarget, clock: ElapsedClock, logger: Logger) async throws(DBusError)
        -> (DBusDispatchLoop, DBusConnectInfo)
    {
        do {
            try DBusLibrary.require()
        } catch {
            throw .libraryUnavailable(error)
        }
        let loop = try DBusDispatchLoop(clock: clock, logger: logger)
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
    func perform(_ command: @escaping Command) -> Bool {
        submit(.command(command))
    }

    /// Queues `work`, waking the thread if it sleeps; false when the loop has terminated.
    func submit(_ work: Work) -> Bool {
        shared.withLock { shared in
            guard !shared.terminated else { return false }
            shared.work.append(work)
            if shared.sleeping {
                shared.sleeping = false
                writeWakeByte()
            }
            return true
        }
    }

    /// Wakes the dispatch thread (to write what libdbus could not).
    func wakeUp() {
        shared.withLock { shared in
            if !shared.terminated { writeWakeByte() }
        }
    }

    /// Called with `shared` locked, so the pipe cannot be closed in between; the pipe is
    /// non-blocking and a full pipe already guarantees a wake-up.
    private func writeWakeByte() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
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

    /// The dispatch thread, once it runs (to tell whether a job runs on it).
    let thread = Locked<pthread_t?>(nil)

    // MARK: Commands (dispatch thread)

    func requestStop() {
        stopRequested = true
    }

    // MARK: The thread

    private func run(_ target: DBusConnectTarget, onReady: (Result<DBusConnectInfo, DBusError>) -> Void) {
        thread.withLock { $0 = pthread_self() }
        let connection: OpaquePointer
        switch Self.open(target) {
        case .success(let opened):
            connection = opened
        case .failure(let failure):
            let reason = "\(failure.name): \(failure.message)"
            logger.debug("D-Bus connect failed: \(reason)")
            terminate(reason: reason)
            onReady(.failure(.connectionFailed(name: failure.name, message: failure.message)))
            return
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
        let canPassUnixFDs = dbus_connection_can_send_type(connection, DBusTypeCode.unixFD) != 0
        outbound.withLock { outbound in
            outbound.connection = connection
            outbound.canPassUnixFDs = canPassUnixFDs
        }
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

    /// libdbus's error when a connection cannot be opened.
    private struct OpenFailure: Error {
        var name: String
        var message: String
    }

    /// A private connection to `target`, registered with the bus.
    private static func open(_ target: DBusConnectTarget) -> Result<OpaquePointer, OpenFailure> {
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
            return .failure(OpenFailure(
                name: error.name.map { String(cString: $0) } ?? "unknown",
                message: error.message.map { String(cString: $0) } ?? ""))
        }
        return .success(connection)
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
            if watchesChanged {
                pollFDs.removeSubrange(2...)
                for (fd, watch) in watches { pollFDs.append(pollfd(fd: fd, events: watch.events, revents: 0)) }
                watchesChanged = false
            }
            let wantsWrite = dbus_connection_has_messages_to_send(connection) != 0
            pollFDs[1].events = Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0)
            for index in pollFDs.indices { pollFDs[index].revents = 0 }
            // With work queued the thread does not sleep: the bus is read at the top of the
            // loop anyway, and watched sockets get a look that does not wait, so they do
            // not starve behind a stream of jobs.
            let sleeps = shared.withLock { shared -> Bool in
                shared.sleeping = shared.work.isEmpty
                return shared.sleeping
            }
            if !sleeps && pollFDs.count == 2 { continue }
            // Nothing here is timed (call deadlines have a timer of their own), so an idle
            // thread sleeps until the bus, a socket or the wake-up pipe has something.
            let result = poll(&pollFDs, nfds_t(pollFDs.count), sleeps ? -1 : 0)
            if sleeps { shared.withLock { $0.sleeping = false } }
            if result < 0 && errno != EINTR {
                lostConnection = true
                return "poll failed: errno \(errno)"
            }
            if pollFDs[0].revents != 0 { drainWakePipe() }
            // Sockets before the bus's next dispatch: what a socket holds arrived no later
            // than the signals read after it.
            for index in pollFDs.indices.dropFirst(2) where pollFDs[index].revents != 0 {
                serviceWatch(pollFDs[index].fd, revents: pollFDs[index].revents)
            }
        }
    }

    /// Swaps the queue with an empty one that keeps its capacity, so queueing allocates
    /// nothing once both have grown.
    private func runCommands() {
        shared.withLock { shared in swap(&shared.work, &runnableWork) }
        for work in runnableWork { run(work) }
        runnableWork.removeAll(keepingCapacity: true)
    }

    private func drainWakePipe() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            while read(wakeRead, buffer.baseAddress, buffer.count) > 0 {}
        }
    }

    private func closeConnection() {
        guard let connection else { return }
        outbound.withLock { $0.connection = nil }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        self.connection = nil
    }

    private func failEverything(reason: String) {
        lostConnection = true
        let calls = outbound.withLock { outbound in
            defer {
                outbound.pending.removeAll()
                outbound.deadlines = Timeline()
            }
            return outbound.pending.values
        }
        for call in calls { call.finish(.failure(.disconnected(reason))) }
        let ended = subscriptions.values.map(\.end)
        subscriptions.removeAll()
        internalReplies.removeAll()
        trackedNames.removeAll()
        nameOwners.removeAll()
        endWatches()
        for end in ended { end() }
        incomingContinuation.finish()
    }

    private func terminate(reason: String) {
        lostConnection = true
        let (leftovers, waiters) = shared.withLock { shared in
            shared.terminated = true
            shared.terminationReason = reason
            let result = (shared.work, shared.terminationWaiters)
            shared.work.removeAll()
            shared.terminationWaiters.removeAll()
            return result
        }
        // Commands queued before termination run against the dead loop and fail their
        // callers with `.disconnected`; jobs move to the global executor.
        for work in leftovers { runAfterTermination(work) }
        close(wakeRead)
        close(wakeWrite)
        incomingContinuation.finish()
        for waiter in waiters { waiter.resume() }
    }

}

/// The libdbus filter: runs on the dispatch thread inside `dbus_connection_dispatch`.
private let dbusFilterFunction: DBusHandleMessageFunction = { _, message, userData in
    guard let message, let userData else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let loop = Unmanaged<DBusDispatchLoop>.fromOpaque(userData).takeUnretainedValue()
    return loop.handle(message)
}
