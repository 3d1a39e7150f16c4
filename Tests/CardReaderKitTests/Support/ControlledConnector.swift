import BLETransport
import CardReaderKit
import ManualClockSteps

/// What a test decides about connection attempts: it counts them, can refuse the next
/// ones, and can hold them open until released (a held attempt ends when its task is
/// cancelled, as a real connect does). It also counts the packets the host writes. Every
/// wait is bounded in real time (``WaitBound``).
actor ConnectorControl {
    private(set) var attempts = 0
    private(set) var writes = 0
    /// Notifications the host has taken from its links' inbound streams.
    private(set) var notificationsTaken = 0
    /// Whether the host is waiting for the next inbound item, having handled the last.
    private var hostWaiting = false
    /// Whether the host's link is down (it took the link's end, or closed it) and no other
    /// has opened since: nothing is on its way to the host.
    private var linkDown = true
    private var refusalsLeft = 0
    private var holding = false
    private var held: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextHold: UInt64 = 0
    /// Waits for more attempts or writes.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Refuses the next `count` attempts.
    func refuse(next count: Int) { refusalsLeft = count }
    /// Holds attempts until ``release()``.
    func hold() { holding = true }
    /// Lets held attempts go on, and later ones too.
    func release() {
        holding = false
        for continuation in held.values { continuation.resume(returning: true) }
        held.removeAll()
    }

    /// Called by the connector: whether the attempt may go on to the real link.
    func begin() async -> Bool {
        attempts += 1
        wakeWaiters()
        if refusalsLeft > 0 {
            refusalsLeft -= 1
            return false
        }
        guard holding else { return true }
        nextHold += 1
        let id = nextHold
        return await withTaskCancellationHandler {
            await withCheckedContinuation { held[id] = $0 }
        } onCancel: {
            Task { await self.cancelHold(id) }
        }
    }

    private func cancelHold(_ id: UInt64) {
        held.removeValue(forKey: id)?.resume(returning: false)
    }

    /// Called by the link: the host wrote a packet and the link took it.
    func wrote() {
        writes += 1
        wakeWaiters()
    }

    /// Called by the link: the host asks for the next inbound item.
    func hostAsks() {
        hostWaiting = true
        wakeWaiters()
    }

    /// Called by the link: the host got an inbound item.
    func hostTook(_ item: LinkInbound?) {
        hostWaiting = false
        switch item {
        case .notification: notificationsTaken += 1
        // The host handles a drop by closing the link (``linkClosed()``).
        case .dropped: break
        case nil: linkDown = true
        }
        wakeWaiters()
    }

    /// Called by the connector: a link opened.
    func linkOpened() {
        linkDown = false
        wakeWaiters()
    }

    /// Called by the link: the host closed it.
    func linkClosed() {
        linkDown = true
        wakeWaiters()
    }

    /// Waits until at least `count` attempts have begun, up to `limit` of real time.
    func waitForAttempts(_ count: Int, within limit: Duration = WaitBound.inProcess) async throws {
        try await waitUntil("\(count) connection attempts", within: limit) { $0.attempts >= count }
    }

    /// Waits until the host has written at least `count` packets, up to `limit` of real time.
    func waitForWrites(_ count: Int, within limit: Duration = WaitBound.inProcess) async throws {
        try await waitUntil("\(count) packets written", within: limit) { $0.writes >= count }
    }

    /// Waits until the host has taken `count` notifications and handled them (it waits for
    /// the next), or its link is down (nothing is on its way), up to `limit` of real time.
    func waitUntilHostHasHandled(notifications count: Int, within limit: Duration = WaitBound.inProcess) async throws {
        try await waitUntil("the host handling \(count) notifications", within: limit) {
            ($0.notificationsTaken >= count && $0.hostWaiting) || $0.linkDown
        }
    }

    /// Waits until the host is not part way through something it writes in several packets
    /// (`writing`), or its link is down. Each wait is up to `limit` of real time.
    func waitUntilHostIsNotWriting(
        _ writing: @Sendable () async -> Bool, within limit: Duration = WaitBound.inProcess
    ) async throws {
        while true {
            let writesSeen = writes
            guard !linkDown, await writing() else { return }
            try await waitUntil("the host writing on", within: limit) { $0.writes > writesSeen || $0.linkDown }
        }
    }

    private func waitUntil(
        _ what: String, within limit: Duration, _ condition: (isolated ConnectorControl) -> Bool
    ) async throws {
        var expired = false
        let alarm = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            self.ringAlarm()
        }
        while !condition(self), !expired {
            await withCheckedContinuation { waiters.append($0) }
            expired = alarmRang
        }
        alarm.cancel()
        alarmRang = false
        guard condition(self) else { throw ScriptedReader.Timeout(what: what) }
    }

    /// Set when a wait's real-time bound ran out.
    private var alarmRang = false

    private func ringAlarm() {
        alarmRang = true
        wakeWaiters()
    }

    private func wakeWaiters() {
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

/// A connector whose attempts the test controls, in front of a real one.
struct ControlledConnector: ReaderConnector {
    let base: any ReaderConnector
    let control: ConnectorControl
    /// Whether its links hide the reader's Battery service (as a transport without it).
    var hidesBatteryService = false

    var readerDescription: String { base.readerDescription }

    func connect() async throws(LinkError) -> any ReaderLink {
        guard await control.begin() else {
            throw LinkError(LinkError.Code(rawValue: "refused-by-test"), "the test refused this connection attempt")
        }
        let link = counted(try await base.connect())
        await control.linkOpened()
        return link
    }

    private func counted(_ link: some ReaderLink) -> any ReaderLink {
        CountedLink(base: link, control: control, hidesBatteryService: hidesBatteryService)
    }
}

/// A link that tells the control about each packet the host writes and each inbound item
/// it takes.
private struct CountedLink<Base: ReaderLink>: ReaderLink {
    let base: Base
    let control: ConnectorControl
    let hidesBatteryService: Bool

    var batteryLevels: AsyncStream<UInt8>? { hidesBatteryService ? nil : base.batteryLevels }
    var maximumWriteLength: Int { get async { await base.maximumWriteLength } }
    var security: LinkSecurity { base.security }
    var inbound: AsyncStream<LinkInbound> {
        let items = InboundIterator(base.inbound.makeAsyncIterator())
        let control = control
        return AsyncStream {
            await control.hostAsks()
            let item = await items.next()
            await control.hostTook(item)
            return item
        }
    }
    func close() async {
        await base.close()
        await control.linkClosed()
    }

    func write(_ packet: [UInt8]) async throws(LinkError) {
        try await base.write(packet)
        await control.wrote()
    }
}

/// The base link's inbound iterator, for the counting stream's unfolding closure: the
/// stream calls that closure for one item at a time, never concurrently.
private final class InboundIterator<Iterator: AsyncIteratorProtocol<LinkInbound, Never>>: @unchecked Sendable {
    private var iterator: Iterator

    init(_ iterator: Iterator) { self.iterator = iterator }

    func next() async -> LinkInbound? { await iterator.next(isolation: #isolation) }
}
