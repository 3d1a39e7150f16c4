import ReaderProtocol

// MARK: - A command and its answer

extension ReaderStateMachine {
    /// The command `id` is about to be written; its answer is awaited until `limit` passes.
    mutating func commandSent(id: UInt64, code: CommandCode, limit: Duration) {
        exchange = .awaitingAnswer(Exchange(id: id, code: code, limit: limit, cancelRequested: false))
    }

    /// The command `id` ends with `result` (its answer, a failed write, a drop), if it is
    /// still the one waiting.
    mutating func finish(_ id: UInt64, _ result: Result<ReaderResponse, CardReaderError>) -> [ReaderAction] {
        guard case .awaitingAnswer(let current) = exchange, current.id == id else { return [] }
        exchange = .idle
        return [.cancelTimer(.answerOverdue(id)), .complete(id, result)]
    }

    /// The command `id` has waited its whole limit. A frame that stopped arriving is cut off
    /// first (the answer may sit behind it, and CANCEL's answer must not be swallowed by
    /// it); then, if no answer came, the command times out and CANCEL goes out — unless its
    /// caller cancelled it, in which case CANCEL is already on its way.
    mutating func answerOverdue(_ id: UInt64, now: Duration) -> [ReaderAction] {
        var actions = cutOffStaleFrame(now: now)
        guard case .awaitingAnswer(let current) = exchange, current.id == id else { return actions }
        let error: CardReaderError =
            current.cancelRequested
            ? .cancelled : .readerTimedOut(current.code, after: current.limit, answeredInstead: current.answeredInstead)
        actions.append(.log(.noAnswerInTime(current.code, limit: current.limit)))
        actions += finish(id, .failure(error))
        if !current.cancelRequested { actions.append(.sendCancel) }
        return actions
    }

    /// The caller of command `id` was cancelled: CANCEL goes out, and the command now waits
    /// only as long as the reader takes to answer it and CANCEL.
    mutating func cancelRequested(_ id: UInt64, now: Duration) -> [ReaderAction] {
        guard case .awaitingAnswer(var current) = exchange, current.id == id, !current.cancelRequested else { return [] }
        current.cancelRequested = true
        current.limit = cancelledCommandLimit
        exchange = .awaitingAnswer(current)
        return [
            .cancelTimer(.answerOverdue(id)), .schedule(.answerOverdue(id), at: now + current.limit),
            .log(.cancelling(current.code)), .sendCancel,
        ]
    }

    /// A CANCEL frame is about to be written; false without a link to write it to.
    mutating func cancelSent() -> Bool {
        guard openLink != nil else { return false }
        unansweredCancels += 1
        return true
    }

    /// Whether a command must wait for the answers to earlier CANCELs before it is sent;
    /// if so, `waiter` waits, until the answers come or ``cancelsOverdue(_:)``.
    mutating func mustSettleCancels(waiter: UInt64) -> Bool {
        guard unansweredCancels > 0 else { return false }
        exchange = .settlingCancels(waiter: waiter)
        return true
    }

    /// The answers to earlier CANCELs did not come in time.
    mutating func cancelsOverdue(_ waiter: UInt64) -> [ReaderAction] {
        guard case .settlingCancels(waiter) = exchange else { return [] }
        exchange = .idle
        return [.settleCancels(waiter, settled: false)]
    }

    /// Whatever waits fails: the command with `error`, a command waiting for CANCELs'
    /// answers with `settled` false.
    mutating func failPendingExchange(with error: CardReaderError) -> [ReaderAction] {
        switch exchange {
        case .idle:
            return []
        case .settlingCancels(let waiter):
            exchange = .idle
            return [.settleCancels(waiter, settled: false)]
        case .awaitingAnswer(let current):
            return finish(current.id, .failure(error))
        }
    }
}

// MARK: - What the link delivers

extension ReaderStateMachine {
    /// Where a notification from the link of `generation` goes while the link carries a
    /// firmware transfer: the update's channel, as it is, with nothing to decide (the one
    /// path taken for every byte the reader sends during a transfer). Nil otherwise.
    func transferChannel(generation: UInt64) -> UpdateChannel? {
        guard case .firmwareTransfer(let open, let channel) = mode, open.generation == generation else { return nil }
        return channel
    }

    /// A notification from the link of `generation`, at `now`: the firmware transfer's
    /// bytes, or the frame decoder's.
    mutating func notificationArrived(_ bytes: [UInt8], generation: UInt64, now: Duration) -> [ReaderAction] {
        guard let open = openLink, open.generation == generation else { return [] }
        if case .firmwareTransfer(_, let channel) = mode { return [.deliver(.bytes(bytes), to: channel)] }
        var events: [FrameDecoder.Event] = []
        decoder.decode(bytes) { events.append($0) }
        var actions = events.flatMap { handle($0) }
        if decoder.hasIncompleteFrame {
            lastNotificationAt = now
            actions += [.cancelTimer(.incompleteFrameQuiet), .schedule(.incompleteFrameQuiet, at: cutOffDue)]
        } else {
            actions.append(.cancelTimer(.incompleteFrameQuiet))
        }
        return actions
    }

    /// When the incomplete frame is cut off if nothing more arrives.
    private var cutOffDue: Duration { lastNotificationAt + incompleteFrameTimeout }

    /// Cuts off an incomplete frame whose bytes stopped coming at least the timeout ago: its
    /// timer asks when it comes due, and a deadline asks before anything is decided or sent.
    mutating func cutOffStaleFrame(now: Duration) -> [ReaderAction] {
        guard decoder.hasIncompleteFrame, now >= cutOffDue else { return [] }
        var events: [FrameDecoder.Event] = []
        decoder.finish { events.append($0) }
        return [.log(.frameCutOff)] + events.flatMap { handle($0) }
    }

    private mutating func handle(_ event: FrameDecoder.Event) -> [ReaderAction] {
        switch event {
        case .frame(let frame, _): route(frame)
        case .damage(let damage): [.log(.lineDamage(damage))]
        }
    }

    /// An event goes to subscribers; CANCEL's answer settles a CANCEL; the waiting
    /// command's answer ends it; anything else is stale.
    private mutating func route(_ frame: Frame) -> [ReaderAction] {
        if frame.code.isEvent {
            do {
                let event = try ReaderEvent(frame: frame)
                var actions: [ReaderAction] = []
                if case .batteryLow(let percent) = event { actions.append(.recordBattery(percent)) }
                return actions + [.broadcast(CardReaderEvent(event))]
            } catch {
                return [.log(.malformedEvent(error))]
            }
        }
        if frame.code == .cancel, unansweredCancels > 0 {
            unansweredCancels -= 1
            guard unansweredCancels == 0, case .settlingCancels(let waiter) = exchange else { return [] }
            exchange = .idle
            return [.settleCancels(waiter, settled: true)]
        }
        guard case .awaitingAnswer(var current) = exchange else { return [.log(.discarded(frame.code))] }
        guard frame.code == current.code else {
            current.answeredInstead = frame.code
            exchange = .awaitingAnswer(current)
            return [.log(.discarded(frame.code))]
        }
        if current.cancelRequested { return finish(current.id, .failure(.cancelled)) }
        do {
            let response = try ReaderResponse(frame: frame)
            if frame.code == .enterFirmwareUpdate, response.status == .success,
                case .enteringFirmwareUpdate(let open, let channel) = mode
            {
                // From the next byte on the link carries YModem (§7.1). A byte that came in
                // the same notification as this answer is lost; the reader repeats its `C`.
                mode = .firmwareTransfer(open, channel)
            }
            return finish(current.id, .success(response))
        } catch {
            return finish(current.id, .failure(.malformedResponse(frame.code, error)))
        }
    }
}
