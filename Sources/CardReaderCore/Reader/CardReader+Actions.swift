import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// Doing what the state machine decides: every change to the link's state goes through
/// ``change(_:)``, which reports a new connection state, and its actions through ``run(_:)``.
extension CardReader {
    /// Changes the machine and reports the connection state to subscribers if it changed.
    func change<Outcome>(_ transition: (inout ReaderStateMachine) -> Outcome) -> Outcome {
        let before = machine.connectionState
        let outcome = transition(&machine)
        reportConnectionState(ifChangedFrom: before)
        publishStatus()
        return outcome
    }

    private func reportConnectionState(ifChangedFrom before: ConnectionState) {
        let after = machine.connectionState
        guard after != before else { return }
        for continuation in stateSubscribers.values { continuation.yield(after) }
    }

    /// Does `actions`, in order: the two that wait for the link here, the rest at once.
    ///
    /// Indexes rather than iterates: in an async function, `for … in` over the array went
    /// through the unspecialised `IndexingIterator` witness and the actions' value
    /// witnesses, on every command's path (SoakBenchmark's profile).
    func run(_ actions: [ReaderAction]) async {
        for index in actions.indices {
            switch actions[index] {
            case .sendCancel:
                await sendCancel()
            case .closeLink(let open, let reason):
                open.inbound.cancel()
                if let reason { logger.notice("link lost: \(reason)") }
                await open.link.close()
                logger.info("disconnected", metadata: ["reason": "\(reason?.description ?? "by the host")"])
            case let action:
                perform(action)
            }
        }
    }

    /// Does an action that does not wait.
    private func perform(_ action: ReaderAction) {
        switch action {
        case .sendCancel, .closeLink:
            break  // run(_:) awaits these
        case .complete(let id, let result):
            // The answer's time, GET INFO's battery and version, and the status go into the
            // reader's record here, in the order the reader sent them, not when the caller
            // resumes: the link carried the answer now, and the reader's idle time counts
            // from its last command, not from this host's scheduling.
            if case .success(let response) = result {
                noteActivity()
                if case .info(let info) = response.body { recordInfo(info) }
            }
            if let waiter = answerWaiters.removeValue(forKey: id) {
                answersDelivered.insert(id)
                waiter.resume(returning: result)
            }
            publishStatus()
            resumeQuietWaitersIfQuiet()
        case .settleCancels(let id, let settled):
            settleWaiters.removeValue(forKey: id)?.resume(returning: settled)
        case .broadcast(let event):
            broadcast(event)
        case .recordBattery(let percent):
            recordBattery(percent, from: .lowBatteryEvent, low: true)
        case .deliver(let input, let channel):
            channel.inputs.yield(input)
        case .stopOpeningLink:
            linkOpening?.cancel()
        case .stopReconnecting:
            reconnection?.cancel()
        case .schedule(let timed, let deadline):
            schedule(timed, at: deadline)
        case .cancelTimer(let timed):
            timeline.cancel(timed)
        case .startReconnecting(let reason):
            startReconnecting(after: reason)
        case .endConnection(let reason):
            endConnection(reason: reason)
        case .resolveLinkWaiters(let back):
            let waiters = linkWaiters.values
            linkWaiters.removeAll()
            for waiter in waiters { waiter.resume(returning: back) }
        case .resolveConnectWaiters(let outcome):
            let waiters = connectWaiters
            connectWaiters.removeAll()
            for waiter in waiters { waiter.resume(returning: outcome) }
        case .countLinkLoss(let link):
            // By the reason the reader inferred when the link dropped, not the drop's code.
            metrics.linkLost(lane.lastDisconnect ?? DisconnectReason(.readerGone, link: link))
        case .countReconnect(let outcome):
            metrics.reconnect(outcome: outcome)
        case .log(let entry):
            log(entry)
        }
    }

    private func log(_ entry: ReaderLogEntry) {
        switch entry {
        case .lineDamage(let damage):
            logger.warning("damaged bytes from the reader: \(damage)")
        case .frameCutOff:
            logger.debug("an incomplete frame received nothing for \(configuration.incompleteFrameTimeout): cut off")
        case .discarded(let code):
            logger.debug("discarded a stale or unexpected answer", metadata: ["code": "\(code)"])
        case .malformedEvent(let error):
            logger.warning("malformed event from the reader: \(error)")
        case .noAnswerInTime(let code, let limit):
            logger.notice("no answer in time", metadata: ["command": "\(code)", "deadline": "\(limit)"])
        case .cancelling(let code):
            logger.debug("cancelling", metadata: ["command": "\(code)"])
        case .restartNotSeen:
            logger.notice("the reader did not drop the link after accepting the image; closing it")
        }
    }

    func resolveLinkWaiter(_ id: UInt64, _ back: Bool) {
        linkWaiters.removeValue(forKey: id)?.resume(returning: back)
    }
}
