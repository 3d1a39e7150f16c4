import Logging
import ReaderProtocol

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

        /// A configuration with the defaults: 5 s to connect, 1 s of link margin, 250 ms for
        /// an incomplete frame, no reconnection.
        public init(
            connectTimeout: Duration = .seconds(5), linkMargin: Duration = .seconds(1),
            incompleteFrameTimeout: Duration = FrameProfile.vpos3356.incompleteFrameTimeout,
            reconnect: ReconnectPolicy? = nil
        ) {
            self.connectTimeout = connectTimeout
            self.linkMargin = linkMargin
            self.incompleteFrameTimeout = incompleteFrameTimeout
            self.reconnect = reconnect
        }
    }

    /// The command waiting for its answer.
    struct Exchange {
        let id: UInt64
        let code: CommandCode
        var continuation: CheckedContinuation<Result<ReaderResponse, CardReaderError>, Never>?
        var result: Result<ReaderResponse, CardReaderError>?
        /// How long the command may wait for its answer; the timeout's error names it.
        var limit: Duration
        var cancelRequested = false
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
        /// The YModem sender's deadline with this id passed.
        case ymodemDeadline(UInt64)
        /// The reader has not dropped the link this long after accepting a firmware image.
        case restartDropOverdue(UInt64)
    }

    /// A command waiting for earlier CANCELs to be answered before it may be sent.
    struct CancelBarrier {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// What opens the links: at ``connect(timeout:)`` and at each reconnection attempt.
    public nonisolated let connector: any ReaderConnector
    /// The deadlines and reconnect policy the reader was created with.
    public nonisolated let configuration: Configuration
    let clock: any Clock<Duration>
    /// The same clock, as time since the reader was created.
    let timing: ElapsedClock
    let logger: Logger
    let metrics: ReaderMetrics

    /// Where the connection stands now; ``stateUpdates()`` reports each change.
    public private(set) var state: ConnectionState = .disconnected
    var link: (any ReaderLink)?
    /// Counts connections, so that a late item from a previous link's inbound stream is
    /// never taken for the current link's.
    var generation: UInt64 = 0
    var inboundTask: Task<Void, Never>?
    var decoder = FrameDecoder()
    /// When the last notification that left a frame incomplete arrived, as time since the
    /// reader was created.
    var lastNotificationAt: Duration = .zero
    /// Deadlines: answers, CANCELs' answers, reconnection waits, the incomplete frame.
    var timeline = Timeline<TimedAction>()
    var gate = CommandGate()
    var exchange: Exchange?
    var nextID: UInt64 = 0
    var writeTail: Task<Void, Never>?
    /// CANCEL frames sent whose answer has not arrived; while any are out, responses are
    /// stale answers to commands that timed out or were cancelled.
    var unansweredCancels = 0
    var barrier: CancelBarrier?
    var eventSubscribers: [UInt64: AsyncStream<CardReaderEvent>.Continuation] = [:]
    var stateSubscribers: [UInt64: AsyncStream<ConnectionState>.Continuation] = [:]
    /// The link being opened by ``connect(timeout:)`` or a reconnection attempt.
    var connectAttempt: Task<Result<any ReaderLink, CardReaderError>, Never>?
    /// ``connect(timeout:)`` calls made while a connect or reconnection was under way.
    var connectWaiters: [CheckedContinuation<Result<Void, CardReaderError>, Never>] = []
    var reconnectTask: Task<Void, Never>?
    /// Commands waiting for a reconnection; true when the link is back.
    var linkWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    /// The drop that started the reconnection under way.
    var lastLoss: LinkError?
    /// Armed before ENTER FIRMWARE UPDATE: becomes ``ymodemInput`` the moment the reader
    /// accepts it, so the next notification already goes to the YModem sender.
    var pendingYModemInput: AsyncStream<YModemInput>.Continuation?
    /// While set, the link carries YModem: notifications go here, not to the frame decoder.
    var ymodemInput: AsyncStream<YModemInput>.Continuation?
    /// After a firmware image is accepted the reader restarts: its drop is expected, starts
    /// no reconnect policy and ends no event stream.
    var restartExpected = false
    /// A drop that came mid-update, for the update to judge: the restart, or a link lost.
    var dropDuringUpdate: LinkError?
    var restartDropWaiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?

    /// A reader reached through `connector`. Nothing happens until ``connect(timeout:)``.
    /// Its metrics (commands, latency, link losses, reconnects,
    /// firmware updates, battery) go to the swift-metrics factory in effect now.
    public init(
        connector: any ReaderConnector, configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "CardReaderKit")
    ) {
        self.connector = connector
        self.configuration = configuration
        self.clock = clock
        self.timing = ElapsedClock(clock)
        self.logger = logger
        metrics = ReaderMetrics(reader: connector.readerDescription)
    }

    // MARK: - Connection

    /// Opens the link, waiting at most `timeout` (default ``Configuration/connectTimeout``).
    /// Returns at once when connected. A call made while another connect or a reconnection
    /// is under way waits for it and shares its outcome. ``disconnect()`` ends a connect in
    /// progress with ``CardReaderError/notConnected``.
    public func connect(timeout: Duration? = nil) async throws(CardReaderError) {
        switch state {
        case .connected:
            return
        case .connecting, .reconnecting:
            let outcome = await withCheckedContinuation { connectWaiters.append($0) }
            try outcome.get()
            return
        case .disconnected, .lost:
            break
        }
        setState(.connecting)
        let outcome = await attemptLink(within: timeout ?? configuration.connectTimeout, purpose: .connect)
        switch outcome {
        case .success(let link):
            install(link)
            resolveConnectWaiters(.success(()))
        case .failure(let error):
            if state == .connecting { setState(.disconnected) }
            resolveConnectWaiters(.failure(error))
            throw error
        }
    }

    /// Closes the link, or stops a connect or a reconnection in progress. A command in
    /// progress ends with ``CardReaderError/notConnected``, and ``events()`` streams finish.
    public func disconnect() async {
        switch state {
        case .connected:
            if let link { await tearDown(link: link, reason: nil) }
        case .connecting, .reconnecting:
            reconnectTask?.cancel()
            reconnectTask = nil
            connectAttempt?.cancel()
            setState(.disconnected)
            resolveConnectWaiters(.failure(.notConnected))
            resolveLinkWaiters(false)
            endConnection(reason: nil)
        case .disconnected, .lost:
            return
        }
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

    enum AttemptPurpose {
        case connect
        case reconnect
    }

    /// Opens a link in a task that ``disconnect()`` can cancel. A link that opens after the
    /// attempt stopped being wanted is closed, and the attempt fails with `notConnected`.
    func attemptLink(within limit: Duration, purpose: AttemptPurpose) async -> Result<any ReaderLink, CardReaderError> {
        let attempt = Task { await self.openLink(within: limit) }
        connectAttempt = attempt
        let outcome = await withTaskCancellationHandler {
            await attempt.value
        } onCancel: {
            attempt.cancel()
        }
        connectAttempt = nil
        let wanted =
            switch (purpose, state) {
            case (.connect, .connecting), (.reconnect, .reconnecting): true
            default: false
            }
        guard wanted else {
            if case .success(let link) = outcome { await link.close() }
            return .failure(.notConnected)
        }
        return outcome
    }

    /// Starts using a link that just opened.
    func install(_ link: any ReaderLink) {
        self.link = link
        generation += 1
        let current = generation
        decoder.reset()
        unansweredCancels = 0
        inboundTask = Self.readInbound(of: link, generation: current, into: self)
        setState(.connected)
        logger.info("connected", metadata: ["reader": "\(connector.readerDescription)"])
    }

    /// Hands each item `link` delivers to `reader`, on the link's executor, then says the
    /// stream ended.
    private static func readInbound(
        of link: some ReaderLink, generation: UInt64, into reader: CardReader
    ) -> Task<Void, Never> {
        Task(executorPreference: link.executor) { [weak reader] in
            for await item in link.inbound {
                await reader?.receive(item, generation: generation)
            }
            await reader?.inboundEnded(generation: generation)
        }
    }

    func resolveConnectWaiters(_ outcome: Result<Void, CardReaderError>) {
        let waiters = connectWaiters
        connectWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: outcome) }
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
            case .answerOverdue(let id): await expire(id)
            case .cancelsOverdue(let id): releaseBarrier(id, settled: false)
            case .linkOverdue(let id): resolveLinkWaiter(id, false)
            case .incompleteFrameQuiet: cutOffStaleFrame()
            case .ymodemDeadline(let id): ymodemInput?.yield(.deadline(id))
            case .restartDropOverdue(let id): releaseRestartWaiter(id)
            }
        }
        return timeline.sleeperWoke(from: wakeUp)
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

    func setState(_ newState: ConnectionState) {
        state = newState
        for continuation in stateSubscribers.values { continuation.yield(newState) }
    }

    func broadcast(_ event: CardReaderEvent) {
        for continuation in eventSubscribers.values { continuation.yield(event) }
    }

    func removeStateSubscriber(_ id: UInt64) { stateSubscribers[id] = nil }
    func removeEventSubscriber(_ id: UInt64) { eventSubscribers[id] = nil }

    func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    deinit {
        reconnectTask?.cancel()
        inboundTask?.cancel()
        for continuation in eventSubscribers.values { continuation.finish() }
        for continuation in stateSubscribers.values { continuation.finish() }
    }

    /// GET INFO, CANCEL, ICC STATUS and POWER OFF are answered within 500 ms (§8).
    static let shortAnswerTime = Duration.milliseconds(500)
}
