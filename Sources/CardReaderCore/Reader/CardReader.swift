import DisabledLogging
import Logging
import ReaderProtocol
import Synchronization
@_spi(Timers) import Timing

/// A VPOS-class card reader: connect, then read cards. The same code drives a reader over
/// Bluetooth LE and the emulated reader; what carries the bytes is the ``ReaderConnector``.
///
/// ```swift
/// let reader = CardReader(connector: EmulatedReaderConnector(reader: EmulatedReader(card: .visaTest)))
/// try await reader.connect()
/// let swipe = try await reader.readMagneticStripe(timeout: .seconds(30))
/// print(swipe.track2.track?.primaryAccountNumber ?? "none")   // 411111******1111
/// ```
///
/// One command runs at a time; callers queue. Every operation has a deadline: the
/// reader's documented answer time plus ``Configuration/linkMargin``. Cancelling the
/// calling task sends CANCEL to the reader and ends the call with
/// ``CardReaderError/cancelled``. An answer that arrives after its deadline is discarded:
/// after a timeout or cancellation the next command first waits for the reader to answer
/// CANCEL, so a late answer is never taken for the next command's. Events never disturb a
/// waiting command.
public actor CardReader {
    /// Deadlines and reconnection: how long connecting and answers may take, and what
    /// happens when the link drops on its own.
    public struct Configuration: Sendable {
        /// How long ``connect(timeout:)`` waits by default: 5 s, as shipping hosts use.
        public var connectTimeout: Duration
        /// Added to each documented answer time to cover the link's latency.
        public var linkMargin: Duration
        /// How long a frame that has started to arrive may wait for its next byte before it
        /// is taken as cut off (the reader sends a frame's notifications back to back), so
        /// that an answer behind line damage is found: 250 ms by default.
        public var incompleteFrameTimeout: Duration
        /// Whether and how to reconnect when the link drops on its own; nil (the default):
        /// a drop ends the connection.
        public var reconnect: ReconnectPolicy?
        /// Whether card operations (swipe, chip, EMV, firmware update) run on an
        /// unencrypted link: false by default, so card data never crosses the air in clear.
        /// Only a reader before firmware 3.0 gives such a link (``LinkSecurityPolicy``); set
        /// it for those, and the reader logs a warning once per connection.
        public var allowsUnencryptedLink: Bool
        /// After this long without a command, the reader is sent GET INFO, which changes
        /// nothing on it, so that it does not drop the idle link (§8: after 5 minutes);
        /// nil (the default): no keep-alive. ``lane`` sets 4 minutes.
        public var keepAliveInterval: Duration?
        /// How long the reader keeps a link that carries no command (§8: 5 minutes): a
        /// drop after that long without one is taken as the reader's idle rule.
        public var readerIdleTimeout: Duration
        /// Below this battery level the status says the battery is low: 20 % by default.
        public var lowBatteryPercent: UInt8

        /// A configuration with the defaults: 5 s to connect, 1 s of link margin, 250 ms for
        /// an incomplete frame, no reconnection, no card operation on an unencrypted link, no
        /// keep-alive, the reader's 5-minute idle rule, a battery low below 20 %.
        public init(
            connectTimeout: Duration = .seconds(5), linkMargin: Duration = .seconds(1),
            incompleteFrameTimeout: Duration = FrameProfile.vpos3356.incompleteFrameTimeout,
            reconnect: ReconnectPolicy? = nil, allowsUnencryptedLink: Bool = false, keepAliveInterval: Duration? = nil,
            readerIdleTimeout: Duration = .seconds(300), lowBatteryPercent: UInt8 = 20
        ) {
            self.allowsUnencryptedLink = allowsUnencryptedLink
            self.keepAliveInterval = keepAliveInterval
            self.readerIdleTimeout = readerIdleTimeout
            self.lowBatteryPercent = lowBatteryPercent
            self.connectTimeout = connectTimeout
            self.linkMargin = linkMargin
            self.incompleteFrameTimeout = incompleteFrameTimeout
            self.reconnect = reconnect
        }

        /// A reader that stays ready all day, for a lane's long-lived owner: reconnects after
        /// every drop it did not ask for, with no attempt or time limit
        /// (``ReconnectPolicy/always``), and keeps the link alive with a GET INFO after
        /// 4 minutes without a command. 4 minutes leaves a minute of the reader's 5 before
        /// it drops an idle link: room for a keep-alive queued behind a cancelled command's
        /// settling, or a write BlueZ retries, and still one command per 4 minutes costs the
        /// reader nothing it notices (GET INFO is answered in 500 ms and changes nothing).
        public static var lane: Configuration {
            Configuration(reconnect: .always, keepAliveInterval: .seconds(240))
        }
    }

    /// What the reader's timers do when they come due.
    enum TimedAction: Sendable, Equatable {
        /// The exchange with this id has waited its whole limit.
        case answerOverdue(UInt64)
        /// The command with this id has waited its limit for earlier CANCELs' answers.
        case cancelsOverdue(UInt64)
        /// The command with this id has waited its limit for a reconnection.
        case linkOverdue(UInt64)
        /// The incomplete frame has received nothing for the timeout.
        case incompleteFrameQuiet
        /// A firmware update's deadline with this id passed.
        case updateDeadline(UInt64)
        /// The command holding this gate ticket has waited its limit for its turn.
        case gateOverdue(UInt64)
        /// The link has carried no command for the keep-alive interval.
        case keepAliveDue
        /// Time to look whether the scheduled update may run.
        case maintenanceCheck
        /// The announced reset should have come by now.
        case resetOverdue
        /// The reader dropped the link for its reset long enough ago to be restarted.
        case resetSilenceOver
    }

    /// What opens the links: at ``connect(timeout:)`` and at each reconnection attempt.
    public nonisolated let connector: any ReaderConnector
    /// The deadlines and reconnect policy the reader was created with.
    public nonisolated let configuration: Configuration
    let clock: any Clock<Duration>
    /// The time of day: when a battery level was read, a reset is expected.
    let wallClock: any WallClock
    /// The same clock, as time since the reader was created.
    let timing: ElapsedClock
    let logger: Logger
    let metrics: ReaderMetrics

    /// Where the connection stands now; ``stateUpdates()`` reports each change.
    public var state: ConnectionState { machine.connectionState }
    /// Whether the open link is encrypted; nil while no link is open.
    public var linkSecurity: LinkSecurity? { machine.openLink?.link.security }
    /// The link's mode, the command waiting for its answer, the CANCELs out, the decoder.
    var machine: ReaderStateMachine
    /// Deadlines: answers, CANCELs' answers, reconnection waits, the incomplete frame, a
    /// firmware update's.
    var timeline = Timeline<TimedAction>()
    var gate = CommandGate()
    var nextID: UInt64 = 0
    /// The last write queued: the next one starts after it, so frames go out whole and in order.
    var writeTail: Task<Void, Never>?
    /// Callers suspended until the machine decides, by id: a command for its answer, a
    /// command for earlier CANCELs' answers, a command for the reconnection.
    var answerWaiters: [UInt64: CheckedContinuation<Result<ReaderResponse, CardReaderError>, Never>] = [:]
    /// Commands whose outcome has been handed to their caller, who has yet to take it (and
    /// let go of the command gate), by id.
    var answersDelivered: Set<UInt64> = []
    var settleWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    /// Callers of ``waitUntilQuiet()``, by id.
    var quietWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    /// Tasks the reader's own timers started (a keep-alive, a scheduled update) that have
    /// not yet run their first step.
    var workStarting = 0
    /// When each of the reader's own tasks that sleeps on the clock (a reconnection's
    /// back-off, a pause between attempts) wakes, by id, until it is back on the reader.
    var sleepingTasks: [UInt64: Duration] = [:]
    var linkWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    /// ``connect(timeout:)`` calls made while a connect or reconnection was under way.
    var connectWaiters: [CheckedContinuation<Result<Void, CardReaderError>, Never>] = []
    var eventSubscribers: [UInt64: AsyncStream<CardReaderEvent>.Continuation] = [:]
    var stateSubscribers: [UInt64: AsyncStream<ConnectionState>.Continuation] = [:]
    var statusSubscribers: [UInt64: AsyncStream<Status>.Continuation] = [:]
    /// What the status reports beyond the link's mode: battery, firmware, reset, reasons.
    var lane = LaneRecord()
    /// Set when the running firmware update's task is cancelled (from any thread): the
    /// update is ending, so commands wait for it (within their deadline) instead of
    /// failing with `updating`.
    nonisolated let updateCancelled = Atomic<Bool>(false)
    /// Gate tickets whose wait passed their command's deadline.
    var overdueTickets: Set<UInt64> = []
    /// The link being opened by ``connect(timeout:)`` or a reconnection attempt, kept to
    /// be cancelled by ``disconnect()``.
    var linkOpening: Task<Result<any ReaderLink, CardReaderError>, Never>?
    /// The reconnect policy's attempts after the last drop, kept to be cancelled.
    var reconnection: Task<Void, Never>?

    /// A reader reached through `connector`. Nothing happens until ``connect(timeout:)``.
    /// Its metrics (commands, latency, link losses, reconnects,
    /// firmware updates, battery) go to the swift-metrics factory in effect now. `wallClock`
    /// dates battery readings and announced resets.
    public init(
        connector: any ReaderConnector, configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(), wallClock: any WallClock = SystemWallClock(),
        logger: Logger = .disabled
    ) {
        self.connector = connector
        self.configuration = configuration
        self.clock = clock
        self.wallClock = wallClock
        self.timing = ElapsedClock(clock)
        self.logger = logger
        metrics = ReaderMetrics(reader: connector.readerDescription)
        machine = ReaderStateMachine(
            reconnects: configuration.reconnect != nil, incompleteFrameTimeout: configuration.incompleteFrameTimeout,
            cancelledCommandLimit: Self.shortAnswerTime + configuration.linkMargin)
    }

    // MARK: - Connection

    /// Opens the link, waiting at most `timeout` (default ``Configuration/connectTimeout``).
    /// Returns at once when connected. A call made while another connect or a reconnection
    /// is under way waits for it and shares its outcome. ``disconnect()`` ends a connect in
    /// progress with ``CardReaderError/notConnected``.
    public func connect(timeout: Duration? = nil) async throws(CardReaderError) {
        switch change({ $0.connectRequested() }) {
        case .connected:
            return
        case .wait:
            let outcome = await withCheckedContinuation { connectWaiters.append($0) }
            try outcome.get()
            return
        case .open:
            break
        }
        if case .failure(let error) = await attemptLink(within: timeout ?? configuration.connectTimeout, for: .connect) {
            await run(change { $0.connectFailed(error) })
            throw error
        }
    }

    /// Closes the link, or stops a connect or a reconnection in progress. A command in
    /// progress ends with ``CardReaderError/notConnected``, and ``events()`` streams finish.
    public func disconnect() async {
        switch machine.connectionState {
        case .connected, .connecting, .reconnecting: lane.lastDisconnect = DisconnectReason(.host)
        case .disconnected, .lost: break
        }
        lane.resetting = false
        await run(change { $0.disconnectRequested() })
    }

    /// The connection state now, then every change, until the subscriber stops listening or
    /// the reader is released.
    public func stateUpdates() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self, bufferingPolicy: .bufferingNewest(16))
        let id = makeID()
        stateSubscribers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { [weak self] _ in Task { await self?.removeStateSubscriber(id) } }
        return stream
    }

    /// Events the reader sends (card inserted or removed, battery low, reset warning), the
    /// reconnection's progress, and the end of the connection, from now on. The stream
    /// lasts one connection (the current one, or the next if none is up): it finishes after
    /// ``CardReaderEvent/disconnected(_:)``, when ``disconnect()`` is called, when the link
    /// drops and no reconnect policy is set or the policy gives up, or when the reader is
    /// released. While a reconnect policy is trying, it stays open.
    public func events() -> AsyncStream<CardReaderEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: CardReaderEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = makeID()
        eventSubscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeEventSubscriber(id) } }
        return stream
    }

    func openLink(within limit: Duration) async -> Result<any ReaderLink, CardReaderError> {
        let connector = connector
        let clock = clock
        enum Outcome: Sendable {
            case link(any ReaderLink)
            case failed(LinkError)
            case timedOut
            case cancelled
        }
        return await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do throws(LinkError) {
                    return .link(try await connector.connect())
                } catch {
                    return Task.isCancelled ? .cancelled : .failed(error)
                }
            }
            group.addTask {
                do {
                    try await clock.sleep(for: limit)
                    return .timedOut
                } catch {
                    return .cancelled
                }
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            // A link that opened after the decision is closed, not leaked.
            for await late in group {
                if case .link(let link) = late { await link.close() }
            }
            switch first {
            case .link(let link):
                return .success(link)
            case .failed(let error):
                return .failure(.connectionFailed(reader: connector.readerDescription, error))
            case .timedOut:
                return .failure(.connectionTimedOut(reader: connector.readerDescription, after: limit))
            case .cancelled:
                return .failure(.cancelled)
            }
        }
    }

    /// Opens a link for `purpose` in a task that ``disconnect()`` can cancel, and starts
    /// using it. A link that opens after the reader stopped wanting it for that purpose is
    /// closed, and the attempt fails with `notConnected`.
    func attemptLink(within limit: Duration, for purpose: ReaderStateMachine.Purpose) async -> Result<Void, CardReaderError> {
        let attempt = Task { await self.openLink(within: limit) }
        linkOpening = attempt
        let outcome = await withTaskCancellationHandler {
            await attempt.value
        } onCancel: {
            attempt.cancel()
        }
        linkOpening = nil
        defer { resumeQuietWaitersIfQuiet() }
        switch outcome {
        case .failure where !machine.wantsLink(for: purpose):
            return .failure(.notConnected)
        case .failure(let error):
            return .failure(error)
        case .success(let link):
            guard let actions = change({ $0.linkOpened(link, for: purpose, reading: { Self.readInbound(of: link, generation: $0, into: self) }) }) else {
                await link.close()
                return .failure(.notConnected)
            }
            logger.info("connected", metadata: ["reader": "\(connector.readerDescription)", "link": "\(link.security)"])
            if link.security == .unencrypted { logUnencryptedLink() }
            await run(actions)
            linkStarted(link)
            return .success(())
        }
    }

    /// Says, once per connection, what an unencrypted link means here.
    private func logUnencryptedLink() {
        let metadata: Logger.Metadata = ["reader": "\(connector.readerDescription)"]
        if configuration.allowsUnencryptedLink {
            logger.warning(
                "the link is not encrypted (a reader before firmware 3.0): card data crosses the air in clear, as allowsUnencryptedLink allows",
                metadata: metadata)
        } else {
            logger.notice(
                "the link is not encrypted (a reader before firmware 3.0): GET INFO works, card operations are refused",
                metadata: metadata)
        }
    }

    /// Hands each item `link` delivers to `reader`, on the link's executor, then says the
    /// stream ended.
    private static func readInbound(
        of link: some ReaderLink, generation: UInt64, into reader: CardReader
    ) -> Task<Void, Never> {
        // Most links deliver an AsyncStream: read it as one, specialised, rather than
        // through the protocol's witnesses once per notification.
        if let stream = link.inbound as? AsyncStream<LinkInbound> {
            return read(stream, executor: link.executor, generation: generation, into: reader)
        }
        return read(link.inbound, executor: link.executor, generation: generation, into: reader)
    }

    private static func read(
        _ inbound: some AsyncSequence<LinkInbound, Never> & Sendable, executor: (any TaskExecutor)?, generation: UInt64,
        into reader: CardReader
    ) -> Task<Void, Never> {
        Task(executorPreference: executor) { [weak reader] in
            for await item in inbound {
                await reader?.receive(item, generation: generation)
            }
            await reader?.inboundEnded(generation: generation)
        }
    }

    // MARK: - Timers

    func schedule(_ action: TimedAction, after delay: Duration) {
        schedule(action, at: timing.elapsed() + delay)
    }

    /// Schedules `action`, starting a timer task when none wakes in time for it. Timer tasks
    /// are never cancelled (see ``Timeline``); one that outlives the reader ends when it
    /// wakes.
    func schedule(_ action: TimedAction, at deadline: Duration) {
        guard let wakeUp = timeline.schedule(action, at: deadline) else { return }
        timing.startTimer(until: wakeUp) { [weak self] in await self?.timerWoke(from: $0) }
    }

    /// A timer woke: performs every action due, and says when it wakes next, if it does.
    func timerWoke(from wakeUp: Duration) async -> Duration? {
        let now = timing.elapsed()
        while let action = timeline.popDue(at: now) {
            switch action {
            case .answerOverdue(let id): await run(change { $0.answerOverdue(id, now: now) })
            case .cancelsOverdue(let id): await run(change { $0.cancelsOverdue(id) })
            case .linkOverdue(let id): resolveLinkWaiter(id, false)
            case .incompleteFrameQuiet: await run(change { $0.cutOffStaleFrame(now: now) })
            case .updateDeadline(let id): machine.updateChannel?.inputs.yield(.deadline(id))
            case .gateOverdue(let ticket): gateOverdue(ticket)
            case .keepAliveDue: keepAliveDue()
            case .maintenanceCheck: maintenanceCheck()
            case .resetOverdue: resetOverdue()
            case .resetSilenceOver: resetSilenceOver()
            }
        }
        let next = timeline.sleeperWoke(from: wakeUp)
        resumeQuietWaitersIfQuiet()
        return next
    }

    // MARK: - Subscribers

    /// The connection is over for good: event subscribers get `.disconnected` and their
    /// streams finish.
    func endConnection(reason: LinkError?) {
        broadcast(.disconnected(reason))
        let subscribers = eventSubscribers.values
        eventSubscribers.removeAll()
        for continuation in subscribers { continuation.finish() }
    }

    func broadcast(_ event: CardReaderEvent) {
        if case .resetScheduled(let delay) = event { recordResetAnnounced(in: delay) }
        for continuation in eventSubscribers.values { continuation.yield(event) }
    }

    func removeStateSubscriber(_ id: UInt64) { stateSubscribers[id] = nil }
    func removeEventSubscriber(_ id: UInt64) { eventSubscribers[id] = nil }
    func removeStatusSubscriber(_ id: UInt64) { statusSubscribers[id] = nil }

    func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    deinit {
        reconnection?.cancel()
        machine.openLink?.inbound.cancel()
        for continuation in eventSubscribers.values { continuation.finish() }
        for continuation in stateSubscribers.values { continuation.finish() }
        for continuation in statusSubscribers.values { continuation.finish() }
    }

    /// GET INFO, CANCEL, ICC STATUS and POWER OFF are answered within 500 ms (§8).
    static let shortAnswerTime = Duration.milliseconds(500)
}
