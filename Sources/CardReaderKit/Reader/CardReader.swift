import BLETransport
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
    private struct Exchange {
        let id: UInt64
        let code: CommandCode
        var continuation: CheckedContinuation<Result<ReaderResponse, CardReaderError>, Never>?
        var result: Result<ReaderResponse, CardReaderError>?
        /// How long the command may wait for its answer; the timeout's error names it.
        var limit: Duration
        var cancelRequested = false
    }

    /// What the reader's timers do when they come due.
    private enum TimedAction: Sendable, Equatable {
        /// The exchange with this id has waited its whole limit.
        case answerOverdue(UInt64)
        /// The command with this id has waited its limit for earlier CANCELs' answers.
        case cancelsOverdue(UInt64)
        /// The command with this id has waited its limit for a reconnection.
        case linkOverdue(UInt64)
        /// The incomplete frame has received nothing for the timeout.
        case incompleteFrameQuiet
    }

    /// A command waiting for earlier CANCELs to be answered before it may be sent.
    private struct CancelBarrier {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    public nonisolated let connector: any ReaderConnector
    public nonisolated let configuration: Configuration
    private let clock: any Clock<Duration>
    /// The same clock, as time since the reader was created.
    private let timing: ElapsedClock
    private let logger: Logger

    public private(set) var state: ConnectionState = .disconnected
    private var link: (any ReaderLink)?
    /// Counts connections, so that a late item from a previous link's inbound stream is
    /// never taken for the current link's.
    private var generation: UInt64 = 0
    private var inboundTask: Task<Void, Never>?
    private var decoder = FrameDecoder()
    /// When the last notification that left a frame incomplete arrived, as time since the
    /// reader was created.
    private var lastNotificationAt: Duration = .zero
    /// Deadlines: answers, CANCELs' answers, reconnection waits, the incomplete frame.
    private var timeline = Timeline<TimedAction>()
    private var gate = CommandGate()
    private var exchange: Exchange?
    private var nextID: UInt64 = 0
    private var writeTail: Task<Void, Never>?
    /// CANCEL frames sent whose answer has not arrived; while any are out, responses are
    /// stale answers to commands that timed out or were cancelled.
    private var unansweredCancels = 0
    private var barrier: CancelBarrier?
    private var eventSubscribers: [UInt64: AsyncStream<CardReaderEvent>.Continuation] = [:]
    private var stateSubscribers: [UInt64: AsyncStream<ConnectionState>.Continuation] = [:]
    /// The link being opened by ``connect(timeout:)`` or a reconnection attempt.
    private var connectAttempt: Task<Result<any ReaderLink, CardReaderError>, Never>?
    /// ``connect(timeout:)`` calls made while a connect or reconnection was under way.
    private var connectWaiters: [CheckedContinuation<Result<Void, CardReaderError>, Never>] = []
    private var reconnectTask: Task<Void, Never>?
    /// Commands waiting for a reconnection; true when the link is back.
    private var linkWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    /// The drop that started the reconnection under way.
    private var lastLoss: LinkError?

    /// A reader reached through `connector`. Nothing happens until ``connect(timeout:)``.
    public init(
        connector: any ReaderConnector, configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "CardReaderKit")
    ) {
        self.connector = connector
        self.configuration = configuration
        self.clock = clock
        self.timing = ElapsedClock(clock)
        self.logger = logger
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

    private func openLink(within limit: Duration) async -> Result<any ReaderLink, CardReaderError> {
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

    private enum AttemptPurpose {
        case connect
        case reconnect
    }

    /// Opens a link in a task that ``disconnect()`` can cancel. A link that opens after the
    /// attempt stopped being wanted is closed, and the attempt fails with `notConnected`.
    private func attemptLink(within limit: Duration, purpose: AttemptPurpose) async -> Result<any ReaderLink, CardReaderError> {
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
    private func install(_ link: any ReaderLink) {
        self.link = link
        generation += 1
        let current = generation
        decoder.reset()
        unansweredCancels = 0
        inboundTask = Task { [weak self] in
            for await item in link.inbound {
                await self?.receive(item, generation: current)
            }
            await self?.inboundEnded(generation: current)
        }
        setState(.connected)
        logger.info("connected", metadata: ["reader": "\(connector.readerDescription)"])
    }

    private func resolveConnectWaiters(_ outcome: Result<Void, CardReaderError>) {
        let waiters = connectWaiters
        connectWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    // MARK: - Reconnection

    /// The link dropped and a policy is set: commands wait, events keep flowing, and
    /// attempts follow the policy until one opens a link or the policy gives up.
    private func startReconnecting(after reason: LinkError, policy: ReconnectPolicy) {
        lastLoss = reason
        setState(.reconnecting(attempt: 1))
        let clock = clock
        let connectTimeout = configuration.connectTimeout
        reconnectTask = Task { [weak self] in
            enum Outcome { case reconnected, gaveUp, stopped }
            let outcome = await withTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    for attempt in 1...policy.maximumAttempts {
                        guard let self, await self.announce(attempt: attempt, after: reason) else { return .stopped }
                        let delay = policy.delay(beforeAttempt: attempt, random: Double.random(in: 0...1))
                        guard (try? await clock.sleep(for: delay)) != nil else { return .stopped }
                        if await self.tryReconnecting(within: connectTimeout) { return .reconnected }
                    }
                    return .gaveUp
                }
                group.addTask {
                    guard (try? await clock.sleep(for: policy.overallDeadline)) != nil else { return .stopped }
                    return .gaveUp
                }
                let first = await group.next() ?? .stopped
                group.cancelAll()
                return first
            }
            if outcome == .gaveUp { await self?.giveUpReconnecting() }
        }
    }

    /// Reports attempt `attempt`; false when reconnecting has stopped.
    private func announce(attempt: Int, after reason: LinkError) -> Bool {
        guard case .reconnecting(let current) = state else { return false }
        if current != attempt { setState(.reconnecting(attempt: attempt)) }
        broadcast(.reconnecting(attempt: attempt, after: reason))
        logger.notice("reconnecting", metadata: ["attempt": "\(attempt)", "after": "\(reason)"])
        return true
    }

    private func tryReconnecting(within limit: Duration) async -> Bool {
        guard case .reconnecting = state else { return false }
        let outcome = await attemptLink(within: limit, purpose: .reconnect)
        guard case .success(let link) = outcome else {
            if case .failure(let error) = outcome { logger.notice("reconnection attempt failed: \(error)") }
            return false
        }
        reconnectTask = nil
        lastLoss = nil
        install(link)
        broadcast(.reconnected)
        resolveConnectWaiters(.success(()))
        resolveLinkWaiters(true)
        return true
    }

    private func giveUpReconnecting() {
        guard case .reconnecting = state, let reason = lastLoss else { return }
        reconnectTask = nil
        lastLoss = nil
        logger.warning("gave up reconnecting", metadata: ["after": "\(reason)"])
        setState(.lost(reason))
        resolveConnectWaiters(.failure(.linkLost(reason)))
        resolveLinkWaiters(false)
        endConnection(reason: reason)
    }

    /// While reconnecting, a command waits for the link up to `limit` (its deadline).
    private func waitWhileReconnecting(upTo limit: Duration) async throws(CardReaderError) {
        guard case .reconnecting = state else { return }
        let id = makeID()
        schedule(.linkOverdue(id), after: limit)
        let back = await withTaskCancellationHandler {
            await withCheckedContinuation { linkWaiters[id] = $0 }
        } onCancel: {
            Task { await self.resolveLinkWaiter(id, false) }
        }
        timeline.cancel(.linkOverdue(id))
        guard back else {
            if Task.isCancelled { throw .cancelled }
            switch state {
            case .lost(let reason): throw .linkLost(reason)
            case .reconnecting: throw lastLoss.map { .linkLost($0) } ?? .notConnected
            default: throw .notConnected
            }
        }
    }

    private func resolveLinkWaiter(_ id: UInt64, _ back: Bool) {
        linkWaiters.removeValue(forKey: id)?.resume(returning: back)
    }

    private func resolveLinkWaiters(_ back: Bool) {
        let waiters = linkWaiters.values
        linkWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: back) }
    }

    // MARK: - Commands

    /// Sends `command` and returns its answer, whatever the status. `answerTime` is the
    /// reader's documented bound; the deadline adds the link margin.
    func perform(_ command: ReaderCommand, answerTime: Duration) async throws(CardReaderError) -> ReaderResponse {
        try await acquireGate()
        defer { gate.release() }
        guard !Task.isCancelled else { throw .cancelled }
        let deadline = answerTime + configuration.linkMargin
        try await waitWhileReconnecting(upTo: deadline)
        try await settleEarlierCancels()
        let id = makeID()
        exchange = Exchange(id: id, code: command.code, limit: deadline)
        schedule(.answerOverdue(id), after: deadline)
        logger.trace("→ \(command.code.commandName ?? "\(command.code)")", metadata: ["frame": "\(command.frame)"])
        do {
            try await write(command.frame)
        } catch {
            finish(id, .failure(error))
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if let result = exchange?.result, exchange?.id == id {
                    exchange = nil
                    continuation.resume(returning: result)
                } else if exchange?.id == id {
                    exchange?.continuation = continuation
                } else {
                    continuation.resume(returning: .failure(.notConnected))
                }
            }
        } onCancel: {
            Task { await self.cancelRequested(id) }
        }
        return try result.get()
    }

    private func acquireGate() async throws(CardReaderError) {
        if gate.tryAcquire() { return }
        let ticket = gate.takeTicket()
        let holding = await withTaskCancellationHandler {
            await withCheckedContinuation { gate.enqueue(ticket, $0) }
        } onCancel: {
            Task { await self.abandonGate(ticket) }
        }
        guard holding else { throw .cancelled }
    }

    private func abandonGate(_ ticket: UInt64) {
        gate.abandon(ticket)
    }

    /// After a timeout or cancellation, waits until the reader has answered every CANCEL,
    /// so no stale answer is outstanding.
    private func settleEarlierCancels() async throws(CardReaderError) {
        guard unansweredCancels > 0 else { return }
        let id = makeID()
        schedule(.cancelsOverdue(id), after: Self.shortAnswerTime + configuration.linkMargin)
        let settled = await withCheckedContinuation { barrier = CancelBarrier(id: id, continuation: $0) }
        timeline.cancel(.cancelsOverdue(id))
        guard settled else {
            if case .lost(let reason) = state { throw .linkLost(reason) }
            guard link != nil else { throw .notConnected }
            logger.warning("the reader answers neither a timed-out command nor CANCEL")
            throw .readerNotResponding
        }
    }

    private func releaseBarrier(_ id: UInt64, settled: Bool) {
        guard let barrier, barrier.id == id else { return }
        self.barrier = nil
        barrier.continuation.resume(returning: settled)
    }

    private func finish(_ id: UInt64, _ result: Result<ReaderResponse, CardReaderError>) {
        guard var current = exchange, current.id == id else { return }
        timeline.cancel(.answerOverdue(id))
        if let continuation = current.continuation {
            exchange = nil
            continuation.resume(returning: result)
        } else if current.result == nil {
            current.result = result
            exchange = current
        }
    }

    private func expire(_ id: UInt64) async {
        // The answer may sit behind a frame that is not cut off yet; and CANCEL's answer
        // must not be swallowed by it.
        cutOffStaleFrame()
        guard let current = exchange, current.id == id, current.result == nil else { return }
        logger.notice("no answer in time", metadata: ["command": "\(current.code)", "deadline": "\(current.limit)"])
        finish(id, .failure(current.cancelRequested ? .cancelled : .readerTimedOut(current.code, after: current.limit)))
        // A cancelled command already has its CANCEL on the way.
        if !current.cancelRequested { await sendCancel() }
    }

    private func cancelRequested(_ id: UInt64) async {
        guard var current = exchange, current.id == id, current.result == nil, !current.cancelRequested else { return }
        current.cancelRequested = true
        // The reader answers the waiting command (02) then CANCEL within 500 ms.
        current.limit = Self.shortAnswerTime + configuration.linkMargin
        timeline.cancel(.answerOverdue(id))
        schedule(.answerOverdue(id), after: current.limit)
        exchange = current
        logger.debug("cancelling", metadata: ["command": "\(current.code)"])
        await sendCancel()
    }

    private func sendCancel() async {
        guard link != nil else { return }
        unansweredCancels += 1
        logger.trace("→ CANCEL", metadata: ["frame": "\(ReaderCommand.cancel.frame)"])
        do {
            try await write(ReaderCommand.cancel.frame)
        } catch where link == nil {
            // The host closed the link while the CANCEL waited for its turn to be written.
            logger.debug("CANCEL not sent: the link was closed first")
        } catch {
            logger.warning("could not send CANCEL: \(error)")
        }
    }

    /// Writes a frame in packets of the link's size. Frames are written whole, one after
    /// another, so a CANCEL never lands inside another frame.
    private func write(_ frame: Frame) async throws(CardReaderError) {
        guard let link else { throw .notConnected }
        let bytes: [UInt8]
        do {
            bytes = try frame.encoded()
        } catch {
            throw .invalidRequest(error.description)
        }
        let previous = writeTail
        let task = Task<Result<Void, CardReaderError>, Never> {
            await previous?.value
            let size = max(1, await link.maximumWriteLength)
            var start = 0
            while start < bytes.count {
                let packet = Array(bytes[start..<min(start + size, bytes.count)])
                do throws(LinkError) {
                    try await link.write(packet)
                } catch {
                    return .failure(.writeFailed(error))
                }
                start += size
            }
            return .success(())
        }
        writeTail = Task { _ = await task.value }
        try await task.value.get()
    }

    // MARK: - Inbound

    private func receive(_ item: LinkInbound, generation: UInt64) async {
        guard generation == self.generation else { return }
        switch item {
        case .notification(let bytes):
            decoder.decode(bytes) { handle($0) }
            if decoder.hasIncompleteFrame {
                lastNotificationAt = timing.elapsed()
                timeline.cancel(.incompleteFrameQuiet)
                schedule(.incompleteFrameQuiet, at: cutOffDue)
            } else {
                timeline.cancel(.incompleteFrameQuiet)
            }
        case .dropped(let reason):
            guard let link else { return }
            logger.notice("link lost: \(reason)")
            await tearDown(link: link, reason: reason)
        }
    }

    private func handle(_ event: FrameDecoder.Event) {
        switch event {
        case .frame(let frame, _):
            route(frame)
        case .damage(let damage):
            logger.warning("damaged bytes from the reader: \(damage)")
        }
    }

    /// When the incomplete frame is cut off if nothing more arrives.
    private var cutOffDue: Duration { lastNotificationAt + configuration.incompleteFrameTimeout }

    /// Cuts off an incomplete frame whose bytes stopped coming at least the timeout ago. Its
    /// timer calls it when it comes due; a deadline calls it before anything is decided or
    /// sent.
    private func cutOffStaleFrame() {
        guard decoder.hasIncompleteFrame, timing.elapsed() >= cutOffDue else { return }
        cutOffIncompleteFrame()
    }

    private func cutOffIncompleteFrame() {
        logger.debug("an incomplete frame received nothing for \(configuration.incompleteFrameTimeout): cut off")
        decoder.finish { handle($0) }
    }

    private func inboundEnded(generation: UInt64) async {
        guard generation == self.generation, let link else { return }
        await tearDown(link: link, reason: LinkError(.linkClosed, "the link ended without a reason"))
    }

    private func route(_ frame: Frame) {
        logger.trace("← \(frame.code.commandName ?? "\(frame.code)")", metadata: ["frame": "\(frame)"])
        if frame.code.isEvent {
            do {
                broadcast(CardReaderEvent(try ReaderEvent(frame: frame)))
            } catch {
                logger.warning("malformed event from the reader: \(error)")
            }
            return
        }
        if frame.code == .cancel, unansweredCancels > 0 {
            unansweredCancels -= 1
            if unansweredCancels == 0, let barrier { releaseBarrier(barrier.id, settled: true) }
            return
        }
        guard let current = exchange, current.result == nil, frame.code == current.code else {
            logger.debug("discarded a stale or unexpected answer", metadata: ["code": "\(frame.code)"])
            return
        }
        if current.cancelRequested {
            finish(current.id, .failure(.cancelled))
            return
        }
        do {
            finish(current.id, .success(try ReaderResponse(frame: frame)))
        } catch {
            finish(current.id, .failure(.malformedResponse(frame.code, error)))
        }
    }

    private func tearDown(link: any ReaderLink, reason: LinkError?) async {
        guard self.link != nil else { return }
        self.link = nil
        inboundTask?.cancel()
        inboundTask = nil
        if let current = exchange {
            finish(current.id, .failure(reason.map { .linkLost($0) } ?? .notConnected))
        }
        if let barrier { releaseBarrier(barrier.id, settled: false) }
        unansweredCancels = 0
        timeline.cancel(.incompleteFrameQuiet)
        decoder.reset()
        if let reason, let policy = configuration.reconnect {
            startReconnecting(after: reason, policy: policy)
        } else {
            setState(reason.map { .lost($0) } ?? .disconnected)
            endConnection(reason: reason)
        }
        await link.close()
        logger.info("disconnected", metadata: ["reason": "\(reason?.description ?? "by the host")"])
    }

    // MARK: - Timers

    private func schedule(_ action: TimedAction, after delay: Duration) {
        schedule(action, at: timing.elapsed() + delay)
    }

    /// Schedules `action`, starting a timer task when none wakes in time for it. Timer tasks
    /// are never cancelled (see ``Timeline``); one that outlives the reader ends when it
    /// wakes.
    private func schedule(_ action: TimedAction, at deadline: Duration) {
        guard let wakeUp = timeline.schedule(action, at: deadline) else { return }
        timing.startTimer(until: wakeUp) { [weak self] in await self?.timerWoke(from: $0) }
    }

    /// A timer woke: performs every action due, and says when it wakes next, if it does.
    private func timerWoke(from wakeUp: Duration) async -> Duration? {
        let now = timing.elapsed()
        while let action = timeline.popDue(at: now) {
            switch action {
            case .answerOverdue(let id): await expire(id)
            case .cancelsOverdue(let id): releaseBarrier(id, settled: false)
            case .linkOverdue(let id): resolveLinkWaiter(id, false)
            case .incompleteFrameQuiet: cutOffStaleFrame()
            }
        }
        return timeline.sleeperWoke(from: wakeUp)
    }

    // MARK: - Subscribers

    /// The connection is over for good: event subscribers get `.disconnected` and their
    /// streams finish.
    private func endConnection(reason: LinkError?) {
        broadcast(.disconnected(reason))
        let subscribers = eventSubscribers.values
        eventSubscribers.removeAll()
        for continuation in subscribers { continuation.finish() }
    }

    private func setState(_ newState: ConnectionState) {
        state = newState
        for continuation in stateSubscribers.values { continuation.yield(newState) }
    }

    private func broadcast(_ event: CardReaderEvent) {
        for continuation in eventSubscribers.values { continuation.yield(event) }
    }

    private func removeStateSubscriber(_ id: UInt64) { stateSubscribers[id] = nil }
    private func removeEventSubscriber(_ id: UInt64) { eventSubscribers[id] = nil }

    private func makeID() -> UInt64 {
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
