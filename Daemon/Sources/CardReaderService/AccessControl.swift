import Synchronization

/// The ``AccessPolicy`` in force, which the daemon replaces when it re-reads its
/// configuration (SIGHUP): a call is judged by the policy at its start.
package final class AccessControl: Sendable {
    private let current: Mutex<AccessPolicy>

    package init(_ policy: AccessPolicy) {
        current = Mutex(policy)
    }

    package var policy: AccessPolicy { current.withLock { $0 } }

    package func replace(with policy: AccessPolicy) {
        current.withLock { $0 = policy }
    }
}
