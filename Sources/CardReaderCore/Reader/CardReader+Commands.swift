import Logging
import ReaderProtocol
import Synchronization
@_spi(Timers) import Timing

/// Sending commands and waiting for their answers: one at a time, each with its deadline,
/// CANCEL on cancellation.
extension CardReader {
    /// Sends `command` and returns its answer, whatever the status. `answerTime` is the
    /// reader's documented bound; the deadline adds the link margin.
    ///
    /// Its deadline covers its wait too: for its turn behind a running command, for a link
    /// being restored, for an announced reset. It waits at most its deadline for those, then
    /// at most its deadline for its answer. During a firmware update it fails at once
    /// (``CardReaderError/Code/updating``).
    func perform(_ command: ReaderCommand, answerTime: Duration) async throws(CardReaderError) -> ReaderResponse {
        let limit = answerTime + configuration.linkMargin
        let waitDeadline = timing.elapsed() + limit
        try await acquireGate(for: command.code, until: waitDeadline)
        defer { gate.release() }
        return try await performHoldingGate(command, answerTime: answerTime, waitingUntil: waitDeadline)
    }

    /// ``perform(_:answerTime:)`` for a caller that already holds the command gate (a
    /// firmware update runs several commands under one hold).
    /// `waitDeadline` bounds the wait for a link being restored or an announced reset (by
    /// default, the command's own deadline from now).
    func performHoldingGate(_ command: ReaderCommand, answerTime: Duration, waitingUntil waitDeadline: Duration? = nil)
        async throws(CardReaderError) -> ReaderResponse
    {
        guard !Task.isCancelled else { throw .cancelled }
        let limit = answerTime + configuration.linkMargin
        let waitDeadline = waitDeadline ?? timing.elapsed() + limit
        try await waitForLinkUnderWay(until: waitDeadline)
        // A required update that the link's return started goes before a card operation.
        if command.code != .enterFirmwareUpdate, lane.update == nil, let pending = lane.requiredPending {
            throw .updating(pending, command: command.code)
        }
        if !lane.keepAliveOut, lane.update == nil {
            try await waitOutAnnouncedReset(command.code, limit: limit, until: waitDeadline)
            // The link back after the reset may have started a required update.
            if command.code != .enterFirmwareUpdate, let pending = lane.requiredPending {
                throw .updating(pending, command: command.code)
            }
        }
        try checkLinkSecurity(for: command.code)
        try await settleEarlierCancels()
        let id = makeID()
        let sentAt = timing.elapsed()
        logger.trace("→ \(command.code.commandName ?? "\(command.code)")", metadata: ["frame": "\(command.frame)"])
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // The caller waits before the frame leaves, so no answer can come first.
                answerWaiters[id] = continuation
                machine.commandSent(id: id, code: command.code, limit: limit)
                schedule(.answerOverdue(id), after: limit)
                noteActivity()
                if !lane.keepAliveOut { lane.lastCommand = timing.elapsed() }
                publishStatus()
                send(command.frame, answering: id)
            }
        } onCancel: {
            Task { await self.cancelRequested(id) }
        }
        answersDelivered.remove(id)
        defer { resumeQuietWaitersIfQuiet() }
        let outcome: String =
            switch result {
            case .success(let response) where response.status == .success: "success"
            case .success(let response): CardReaderError.status(response.status, of: command.code).identifier
            case .failure(let error): error.identifier
            }
        metrics.command(command.code, outcome: outcome, duration: timing.elapsed() - sentAt)
        return try result.get()
    }

    /// Returns once no command waits for its answer or has yet to take it, no timer of the reader's is due and
    /// not yet acted on, no task its timers started (a keep-alive, a scheduled update) is
    /// yet to take its first step, no link is being opened, no task of its own that slept
    /// on the clock (a reconnection's back-off) has woken without taking its next step, no
    /// frame is part way in, and no firmware transfer is under way: for a test that steps a
    /// manual clock against a reader that answers and connects at once and whole, so that
    /// it never moves time past a deadline whose answer is on its way, nor before the
    /// reader has done what the time it reached asks. Returns at once when the calling
    /// task is cancelled.
    package func waitUntilQuiet() async {
        // Looks again each time it is woken: a task woken meanwhile may have taken its next
        // step (opened a link) before this one runs on the reader again.
        while !isQuiet, !Task.isCancelled {
            let id = makeID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if Task.isCancelled { continuation.resume() } else { quietWaiters[id] = continuation }
                }
            } onCancel: {
                Task { await self.stopWaitingUntilQuiet(id) }
            }
        }
    }

    private func stopWaitingUntilQuiet(_ id: UInt64) {
        quietWaiters.removeValue(forKey: id)?.resume()
    }

    /// How long until the reader's earliest timer is due, or one of its own tasks wakes (a
    /// reconnection's back-off), if any: with ``waitUntilQuiet()``, what lets a test step a
    /// manual clock from one of the reader's timers to the next even before the task that
    /// sleeps for it is asleep.
    package var timeUntilNextTimer: Duration? {
        [timeline.earliestDeadline, sleepingTasks.values.min()].compactMap(\.self).min().map { $0 - timing.elapsed() }
    }

    private var isQuiet: Bool {
        let transferring = lane.update.map { [.entering, .transferring, .verifying].contains($0.phase) } ?? false
        let now = timing.elapsed()
        // A frame that has started to arrive has the rest of its notifications on the way.
        let frameArriving = timeline.deadline(of: .incompleteFrameQuiet) != nil
        return answerWaiters.isEmpty && answersDelivered.isEmpty && workStarting == 0 && linkOpening == nil
            && !transferring && !frameArriving
            && !timeline.hasDue(at: now) && !timeline.hasWakingSleeper(at: now) && !sleepingTasks.values.contains { $0 <= now }
    }

    /// What keeps the reader from being quiet (``waitUntilQuiet()``), for a test that waited long.
    package var notQuietBecause: String {
        let now = timing.elapsed()
        return "answers awaited \(answerWaiters.count), work starting \(workStarting), opening a link \(linkOpening != nil), "
            + "answers not yet taken \(answersDelivered.count), "
            + "update \(String(describing: lane.update?.phase)), frame arriving \(timeline.deadline(of: .incompleteFrameQuiet) != nil), "
            + "timer due \(timeline.hasDue(at: now)), timer waking \(timeline.hasWakingSleeper(at: now)), "
            + "tasks woken \(sleepingTasks.values.filter { $0 <= now }), now \(now)"
    }

    func resumeQuietWaitersIfQuiet() {
        guard isQuiet, !quietWaiters.isEmpty else { return }
        let waiters = quietWaiters.values
        quietWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Sleeps on the reader's clock for `duration` (a reconnection's back-off, a pause
    /// between attempts); false when the task is cancelled. Until the task is back on the
    /// reader, its wake-up keeps ``waitUntilQuiet()`` waiting.
    func sleep(for duration: Duration) async -> Bool {
        let id = makeID()
        // One wake-up time, for the record and the sleep alike.
        let wakeUp = timing.elapsed() + duration
        sleepingTasks[id] = wakeUp
        defer {
            sleepingTasks[id] = nil
            resumeQuietWaitersIfQuiet()
        }
        return (try? await timing.sleep(wakeUp)) != nil
    }

    /// Starts `work` in a task of its own, counted until it takes its first step on the
    /// reader (``waitUntilQuiet()``).
    @discardableResult
    func startWork(_ work: @escaping @Sendable (isolated CardReader) async -> Void) -> Task<Void, Never> {
        workStarting += 1
        return Task {
            await self.begin(work)
        }
    }

    private func begin(_ work: @Sendable (isolated CardReader) async -> Void) async {
        workStarting -= 1
        // Waiters look again once this turn on the reader is over: after the work's first
        // step, which may wait long (a keep-alive for the link, behind a reset).
        resumeQuietWaitersIfQuiet()
        await work(self)
        resumeQuietWaitersIfQuiet()
    }

    /// Refuses a card operation on an unencrypted link unless the configuration allows it.
    func checkLinkSecurity(for command: CommandCode) throws(CardReaderError) {
        guard command.carriesCardData, let link = machine.openLink?.link, link.security == .unencrypted,
            !configuration.allowsUnencryptedLink
        else { return }
        throw .linkNotEncrypted(command, reader: connector.readerDescription)
    }

    /// Takes the command gate for `command`, waiting in line until `deadline` at most (nil:
    /// no limit). Fails at once while a firmware update holds it, unless the update was
    /// cancelled and is ending.
    func acquireGate(for command: CommandCode?, until deadline: Duration?) async throws(CardReaderError) {
        if let progress = lane.update, !updateCancelled.load(ordering: .relaxed) { throw .updating(progress, command: command) }
        if command != .enterFirmwareUpdate, let pending = lane.requiredPending { throw .updating(pending, command: command) }
        if gate.tryAcquire() { return }
        let ticket = gate.takeTicket()
        let queuedAt = timing.elapsed()
        if let deadline { schedule(.gateOverdue(ticket), at: deadline) }
        let holding = await withTaskCancellationHandler {
            await withCheckedContinuation { gate.enqueue(ticket, $0) }
        } onCancel: {
            Task { await self.abandonGate(ticket) }
        }
        if deadline != nil { timeline.cancel(.gateOverdue(ticket)) }
        let overdue = overdueTickets.remove(ticket) != nil
        if holding { return }
        guard overdue, !Task.isCancelled else { throw .cancelled }
        if let progress = lane.update { throw .updating(progress, command: command) }
        if let resetAt = lane.resetAt { throw .resetting(command, timeLeft: max(.zero, resetAt - timing.elapsed())) }
        if lane.resetting { throw .resetting(command, timeLeft: nil) }
        throw .queueTimedOut(command, after: timing.elapsed() - queuedAt)
    }

    func abandonGate(_ ticket: UInt64) {
        gate.abandon(ticket)
    }

    /// After a timeout or cancellation, waits until the reader has answered every CANCEL,
    /// so no stale answer is outstanding.
    func settleEarlierCancels() async throws(CardReaderError) {
        let id = makeID()
        guard machine.mustSettleCancels(waiter: id) else { return }
        schedule(.cancelsOverdue(id), after: Self.shortAnswerTime + configuration.linkMargin)
        let settled = await withCheckedContinuation { settleWaiters[id] = $0 }
        timeline.cancel(.cancelsOverdue(id))
        guard settled else {
            if case .lost(let reason) = state { throw .linkLost(reason) }
            guard machine.openLink != nil else { throw .notConnected }
            logger.warning("the reader answers neither a timed-out command nor CANCEL")
            throw .readerNotResponding
        }
    }

    func cancelRequested(_ id: UInt64) async {
        await run(change { $0.cancelRequested(id, now: timing.elapsed()) })
    }

    func sendCancel() async {
        guard machine.cancelSent() else { return }
        logger.trace("→ CANCEL", metadata: ["frame": "\(ReaderCommand.cancel.frame)"])
        do {
            try await write(ReaderCommand.cancel.frame)
        } catch where machine.openLink == nil {
            // The host closed the link while the CANCEL waited for its turn to be written.
            logger.debug("CANCEL not sent: the link was closed first")
        } catch {
            logger.warning("could not send CANCEL: \(error)")
        }
    }

    /// Writes the frame of command `id` after every write queued before; if it cannot be
    /// written, the command ends with that error.
    private func send(_ frame: Frame, answering id: UInt64) {
        let bytes: [UInt8]
        do {
            bytes = try frame.encoded()
        } catch {
            Task { await self.run(self.change { $0.finish(id, .failure(.invalidRequest(error.description))) }) }
            return
        }
        _ = queueWrite(bytes, failing: id)
    }

    /// Writes a frame in packets of the link's size. Frames are written whole, one after
    /// another, so a CANCEL never lands inside another frame.
    func write(_ frame: Frame) async throws(CardReaderError) {
        let bytes: [UInt8]
        do {
            bytes = try frame.encoded()
        } catch {
            throw .invalidRequest(error.description)
        }
        try await write(bytes: bytes)
    }

    /// Writes bytes in packets of the link's size, after every write queued before.
    func write(bytes: [UInt8]) async throws(CardReaderError) {
        try await queueWrite(bytes).value.get()
    }

    /// Queues `bytes` to be written in packets of the link's size after every write queued
    /// before; the task says how it went. If it fails, the command `failing` (when given)
    /// ends with the failure.
    private func queueWrite(_ bytes: [UInt8], failing command: UInt64? = nil) -> Task<Result<Void, CardReaderError>, Never> {
        guard let link = machine.openLink?.link else {
            return Task {
                if let command { await self.run(self.change { $0.finish(command, .failure(.notConnected)) }) }
                return .failure(.notConnected)
            }
        }
        let previous = writeTail
        let task = Task<Result<Void, CardReaderError>, Never>(executorPreference: link.executor) {
            await previous?.value
            let size = max(1, await link.maximumWriteLength)
            var start = 0
            while start < bytes.count {
                let packet = Array(bytes[start..<min(start + size, bytes.count)])
                do throws(LinkError) {
                    try await link.write(packet)
                } catch {
                    if let command { await self.run(self.change { $0.finish(command, .failure(.writeFailed(error))) }) }
                    return .failure(.writeFailed(error))
                }
                start += size
            }
            return .success(())
        }
        writeTail = Task { _ = await task.value }
        return task
    }
}

extension CommandCode {
    /// Whether the command or its answer carries card data, or a firmware image: READ
    /// MAGNETIC STRIPE, ICC POWER ON, ICC APDU, ENTER FIRMWARE UPDATE. These need an
    /// encrypted link unless the configuration allows an unencrypted one.
    var carriesCardData: Bool {
        self == .readMagneticStripe || self == .iccPowerOn || self == .iccAPDU || self == .enterFirmwareUpdate
    }
}
