import Foundation

/// Mutable state behind a lock, shared between the dispatch thread and tasks.
///
/// A `pthread_mutex`-based lock (NSLock) rather than `Synchronization.Mutex`: on Linux
/// the latter uses raw futexes that ThreadSanitizer cannot see, which makes TSan runs
/// report false races. Never call out (resume continuations, yield to streams, enqueue
/// commands of another lock) from inside `withLock` unless the lock order is documented.
final class DBusLocked<State>: @unchecked Sendable {
    private var state: State
    private let lock = NSLock()

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
