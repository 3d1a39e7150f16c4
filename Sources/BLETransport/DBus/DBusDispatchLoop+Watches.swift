#if canImport(Glibc)
import Glibc
import Locking
#elseif canImport(Musl)
import Musl
#endif

/// Sockets the dispatch thread polls beside the bus, so that values arriving on an
/// acquired GATT socket are read by the thread that reads the bus: no thread per socket,
/// and one order for everything a device sends.
extension DBusDispatchLoop {
    /// What to poll a descriptor for and what to do when it is ready.
    struct FileWatch {
        var events: Int16
        /// Runs on the dispatch thread with the ready events; returns false to stop
        /// watching. It also runs once with `POLLNVAL` when the watch is removed and with
        /// `POLLHUP` when the connection ends, so a waiter always hears.
        var handler: @Sendable (Int16) -> Bool
    }

    func addWatch(_ fd: Int32, _ watch: FileWatch) {
        guard !lostConnection else {
            _ = watch.handler(Int16(POLLHUP))
            return
        }
        watches[fd] = watch
        watchesChanged = true
    }

    func removeWatch(_ fd: Int32) {
        guard let watch = watches.removeValue(forKey: fd) else { return }
        watchesChanged = true
        _ = watch.handler(Int16(POLLNVAL))
    }

    func serviceWatch(_ fd: Int32, revents: Int16) {
        guard let watch = watches[fd] else { return }
        if !watch.handler(revents) {
            watches[fd] = nil
            watchesChanged = true
        }
    }

    /// The connection ended: every watcher hears a hang-up once.
    func endWatches() {
        let all = watches.values
        watches.removeAll()
        watchesChanged = true
        for watch in all { _ = watch.handler(Int16(POLLHUP)) }
    }
}

extension DBusConnection {
    /// Polls `fd` for `events` on the dispatch thread beside the bus: `handler` runs there
    /// whenever it is ready, until it returns false or ``unwatch(_:then:)``. The caller
    /// keeps ownership of `fd` and must not close it while it is watched.
    package func watch(_ fd: Int32, events: Int16, handler: @escaping @Sendable (Int16) -> Bool) {
        let watch = DBusDispatchLoop.FileWatch(events: events, handler: handler)
        if !loop.perform({ $0.addWatch(fd, watch) }) { _ = handler(Int16(POLLHUP)) }
    }

    /// Stops polling `fd`, then runs `then` on the dispatch thread (where closing it is
    /// safe), or at once when the connection has ended.
    package func unwatch(_ fd: Int32, then: @escaping @Sendable () -> Void) {
        if !loop.perform({
            $0.removeWatch(fd)
            then()
        }) {
            then()
        }
    }

    /// Returns when `fd` can be written, has failed or hung up, or the task is cancelled.
    package func waitUntilWritable(_ fd: Int32) async {
        let once = ResumeOnce()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                once.install(continuation)
                watch(fd, events: Int16(POLLOUT)) { _ in
                    once.resume()
                    return false
                }
            }
        } onCancel: {
            unwatch(fd) { once.resume() }
        }
    }
}

/// A continuation resumed by whichever comes first, exactly once.
private final class ResumeOnce: Sendable {
    private let state = Locked<(continuation: CheckedContinuation<Void, Never>?, resumed: Bool)>((nil, false))

    func install(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state -> Bool in
            if state.resumed { return true }
            state.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func resume() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = (nil, true) }
            return state.resumed ? nil : state.continuation
        }
        continuation?.resume()
    }
}
