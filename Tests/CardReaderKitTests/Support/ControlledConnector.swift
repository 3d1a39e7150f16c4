import BLETransport
import CardReaderKit
import CardReaderKitTesting
import ManualClockSteps

/// What a test decides about connection attempts: it counts them, can refuse the next
/// ones, and can hold them open until released (a held attempt ends when its task is
/// cancelled, as a real connect does). It also counts the packets the host writes. Every
/// wait is bounded in real time (``WaitBound``).
actor ConnectorControl {
    private(set) var attempts = 0
    private(set) var writes = 0
    /// The emulated reader's connection of the link the host has open; nil when it has
    /// none (it took the link's end, or closed it): then nothing is on its way to it.
    private var openConnection: Int?
    /// Items (notifications, and the drop) the host has taken from the open link.
    private var takenOnOpenLink = 0
    /// Whether the host is waiting for the open link's next item, having handled the last.
    private var hostWaiting = false
    /// What the next attempts throw, in turn: each refused.
    private var refusals: [LinkError] = []
    private var holding = false
    private var held: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextHold: UInt64 = 0
    /// Waits for more attempts or writes.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Refuses `count` more attempts, after those already to be refused, each with `error`.
    func refuse(
        next count: Int,
        with error: LinkError = LinkError(LinkError.Code(rawValue: "refused-by-test"), "the test refused this connection attempt")
    ) {
        refusals += Array(repeating: error, count: count)
    }
    /// Holds attempts until ``release()``.
    func hold() { holding = true }
    /// Lets held attempts go on, and later ones too.
    func release() {
        holding = false
        for continuation in held.values { continuation.resume(returning: true) }
        held.removeAll()
    }

    /// Called by the connector: nil when the attempt may go on to the real link, else
    /// what refuses it.
    func begin() async -> LinkError? {
        attempts += 1
        wakeWaiters()
        if !refusals.isEmpty { return refusals.removeFirst() }
        guard holding else { return nil }
        nextHold += 1
        let id = nextHold
        let goesOn = await withTaskCancellationHandler {
            await withCheckedContinuation { held[id] = $0 }
        } onCancel: {
            Task { await self.cancelHold(id) }
        }
        return goesOn ? nil : LinkError(.cancelled, "the connection attempt was cancelled while the test held it")
    }

    private func cancelHold(_ id: UInt64) {
        held.removeValue(forKey: id)?.resume(returning: false)
    }

    /// Called by the link: the host wrote a packet and the link took it.
    func wrote() {
        writes += 1
        wakeWaiters()
    }

    /// Called by the link to `connection`: the host asks for its next inbound item.
    func hostAsks(connection: Int) {
        guard connection == openConnection else { return }
        hostWaiting = true
        wakeWaiters()
    }

    /// Called by the link to `connection`: the host got an inbound item, or (nil) the
    /// link's end.
    func hostTook(_ item: LinkInbound?, connection: Int) {
        guard connection == openConnection else { return }
        hostWaiting = false
        if item == nil {
            openConnection = nil
        } else {
            takenOnOpenLink += 1
        }
        wakeWaiters()
    }

    /// Called by the connector: a link to the emulated reader's `connection` opened.
    func linkOpened(connection: Int) {
        openConnection = connection
        takenOnOpenLink = 0
        hostWaiting = false
        wakeWaiters()
    }

    /// Called by the link to `connection`: the host closed it.
    func linkClosed(connection: Int) {
        guard connection == openConnection else { return }
        openConnection = nil
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

    /// Waits until the host has taken everything the emulated reader `sent` on its latest
    /// connection and handled it (it waits for the next item), or has no link open to that
    /// connection (it closed it, or took its end: nothing more reaches it), up to `limit` of
    /// real time.
    func waitUntilHostHasHandled(_ sent: EmulatedReader.Outbound, within limit: Duration = WaitBound.inProcess) async throws {
        try await waitUntil("the host handling \(sent.items) items of connection \(sent.connection)", within: limit) {
            $0.hasHandled(sent)
        }
    }

    /// Whether nothing of `sent` is on its way to the host.
    func hasHandled(_ sent: EmulatedReader.Outbound) -> Bool {
        sent.connection != openConnection || (takenOnOpenLink >= sent.items && hostWaiting)
    }

    /// Waits until the host is not part way through something it writes in several packets
    /// (`writing`), or its link is down. Each wait is up to `limit` of real time.
    func waitUntilHostIsNotWriting(
        _ writing: @Sendable () async -> Bool, within limit: Duration = WaitBound.inProcess
    ) async throws {
        while true {
            let writesSeen = writes
            guard openConnection != nil, await writing() else { return }
            try await waitUntil("the host writing on", within: limit) { $0.writes > writesSeen || $0.openConnection == nil }
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
        guard condition(self) else {
            throw ScriptedReader.Timeout(
                what: "\(what) (open connection \(openConnection.map(String.init) ?? "none"), items taken \(takenOnOpenLink), host waiting \(hostWaiting), writes \(writes))")
        }
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
        if let refusal = await control.begin() { throw refusal }
        let link = try await base.connect()
        // Links to the emulated reader say which of its connections they are, so that what
        // the host takes is matched with what the reader sent on it.
        let connection = (link as? EmulatedReaderLink)?.connectionID ?? 0
        await control.linkOpened(connection: connection)
        return counted(link, connection: connection)
    }

    private func counted(_ link: some ReaderLink, connection: Int) -> any ReaderLink {
        CountedLink(base: link, connection: connection, control: control, hidesBatteryService: hidesBatteryService)
    }
}

/// A link that tells the control about each packet the host writes and each inbound item
/// it takes.
private struct CountedLink<Base: ReaderLink>: ReaderLink {
    let base: Base
    let connection: Int
    let control: ConnectorControl
    let hidesBatteryService: Bool

    var batteryLevels: AsyncStream<UInt8>? { hidesBatteryService ? nil : base.batteryLevels }
    var maximumWriteLength: Int { get async { await base.maximumWriteLength } }
    var security: LinkSecurity { base.security }
    var inbound: AsyncStream<LinkInbound> {
        let items = InboundIterator(base.inbound.makeAsyncIterator())
        let (control, connection) = (control, connection)
        return AsyncStream {
            await control.hostAsks(connection: connection)
            let item = await items.next()
            await control.hostTook(item, connection: connection)
            return item
        }
    }
    func close() async {
        await base.close()
        await control.linkClosed(connection: connection)
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
