/// A live match rule at the bus daemon and its handler on the dispatch thread (see
/// ``DBusConnection/subscribe(matching:deliver:end:)``). Cancelling removes both;
/// so does the connection ending.
package struct DBusSignalSubscription: Sendable {
    let loop: DBusDispatchLoop
    let id: UInt64

    /// Removes the handler and the daemon's rule (RemoveMatch). Idempotent.
    package func cancel() {
        let id = self.id
        loop.perform { $0.removeSubscription(id, removeMatch: true) }
    }
}
