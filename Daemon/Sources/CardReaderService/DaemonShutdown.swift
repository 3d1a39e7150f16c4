import Synchronization

/// Whether the daemon is stopping: a call it cancels then ends `UNAVAILABLE` with reason
/// `daemon-stopping` (the client may try again on the next daemon), not as its own cancel.
package final class DaemonShutdown: Sendable {
    private let stopping = Atomic<Bool>(false)

    package init() {}

    /// The daemon has begun to stop.
    package func begin() { stopping.store(true, ordering: .relaxed) }

    package var isStopping: Bool { stopping.load(ordering: .relaxed) }
}
