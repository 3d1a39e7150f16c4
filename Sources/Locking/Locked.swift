#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Mutable state behind a `pthread_mutex`, shared between threads and tasks.
///
/// The package's one lock, used instead of `Synchronization.Mutex`: on Linux, `Mutex`
/// locks through atomics and futex calls inside the standard library, which is not built
/// for ThreadSanitizer, so TSan sees no ordering between two critical sections and reports
/// every correct use as a race (Docs/hardening.md describes the program that shows
/// it). TSan intercepts `pthread_mutex_lock`, so a race it reports here is a real one.
///
/// Never call out (resume continuations, yield to streams, take another lock) from inside
/// `withLock` unless the lock order is documented where it happens.
package final class Locked<State: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
