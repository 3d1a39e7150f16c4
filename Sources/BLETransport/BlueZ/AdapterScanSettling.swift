import Locking

/// When each adapter's LE scanning last changed under a session, and how long a `Connect`
/// on it waits after that.
///
/// bluetoothd 5.66 with a Linux 6.1 kernel races a `Connect` sent while the adapter's
/// scanning is being set up again — just after a discovery stopped, or a link was ended:
/// the new link's ATT channel may reach bluetoothd as an incoming one, whose security it
/// then fails to raise to the bond's (`setsockopt(BT_SECURITY): Invalid argument` in its
/// log), and a bonded device's services never resolve on that link. Of 566 connections in
/// emulated guests, 36 stalled so, every one with that error: 22 of the 268 made within
/// 0.3 s of a discovery stopping; 14 of the 141 made later than that but within 2 s of a
/// link ending (9 of the 35 made again within 1 s of a stalled one); none of the other 156.
/// A `Connect` therefore waits until the adapter's scan has settled: ``afterDiscovery``
/// after a discovery of this session stopped, ``afterDisconnect`` after this session ended
/// a stalled link.
package final class AdapterScanSettling: Sendable {
    /// How long the scan takes to settle after a discovery stopped.
    package static let afterDiscovery: Duration = .milliseconds(500)
    /// How long it takes after a link was ended.
    package static let afterDisconnect: Duration = .seconds(2)

    /// The time, on the session's clock, at which each adapter's scan will have settled.
    private let settledAt = Locked<[DBusObjectPath: Duration]>([:])

    /// Notes that `adapter`'s scanning changed at `time`, and settles `settle` later.
    func changed(_ adapter: DBusObjectPath, at time: Duration, settlingFor settle: Duration) {
        settledAt.withLock { $0[adapter] = max($0[adapter] ?? .zero, time + settle) }
    }

    /// When `adapter`'s scan will have settled; nil if it has not changed in this session.
    func settled(_ adapter: DBusObjectPath) -> Duration? {
        settledAt.withLock { $0[adapter] }
    }
}
