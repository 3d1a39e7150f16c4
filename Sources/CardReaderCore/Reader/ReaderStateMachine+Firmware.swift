import ReaderProtocol

// MARK: - A firmware update's modes

extension ReaderStateMachine {
    /// ENTER FIRMWARE UPDATE is about to go out: its successful answer turns the link over
    /// to the transfer, whose inputs go to `channel`. False without a link carrying frames.
    mutating func firmwareUpdateEntering(_ channel: UpdateChannel) -> Bool {
        guard case .commands(let open) = mode else { return false }
        mode = .enteringFirmwareUpdate(open, channel)
        return true
    }

    /// ENTER FIRMWARE UPDATE was answered (or failed): true if the link now carries the
    /// transfer; otherwise it carries frames again.
    mutating func firmwareUpdateEntered() -> Bool {
        switch mode {
        case .firmwareTransfer:
            return true
        case .enteringFirmwareUpdate(let open, _):
            mode = .commands(open)
            return false
        default:
            return false
        }
    }

    /// The transfer ended: the reader accepted the image (`accepted`), or the transfer
    /// failed. The link carries frames again; if it dropped during the transfer, that drop
    /// was the reader's restart when the image was accepted, and a link lost otherwise.
    mutating func transferEnded(accepted: Bool) -> [ReaderAction] {
        switch mode {
        case .firmwareTransfer(let open, let channel):
            decoder.reset()
            mode = accepted ? .awaitingRestart(open, channel) : .commands(open)
            return []
        case .transferInterrupted(let reason, _):
            if accepted {
                mode = .restarting(attempt: 1)
                return []
            }
            return connectionLost(reason)
        default:
            return []
        }
    }

    /// Whether the update still waits for the reader to drop the link to restart.
    var awaitsRestart: Bool {
        if case .awaitingRestart = mode { return true }
        return false
    }

    /// The reader has not dropped the link within the time §7.2 gives it: the host closes
    /// it, and the update connects again as after a restart.
    mutating func restartOverdue() -> [ReaderAction] {
        guard case .awaitingRestart = mode else { return [] }
        return [.log(.restartNotSeen)] + linkEnded(reason: nil)
    }

    /// The update makes connection attempt `attempt` to the restarted reader; false if the
    /// reader no longer waits for it (disconnected meanwhile).
    mutating func restartAttempt(_ attempt: Int) -> Bool {
        guard case .restarting = mode else { return false }
        mode = .restarting(attempt: attempt)
        return true
    }

    /// GET INFO answered on the new link: the update is over, the link carries commands.
    mutating func restartConfirmed() -> [ReaderAction] {
        guard case .confirmingRestart(let open, _) = mode else { return [] }
        mode = .commands(open)
        return [.broadcast(.reconnected), .resolveConnectWaiters(.success(())), .resolveLinkWaiters(true)]
    }

    /// The restarted reader took the connection but did not answer: the link closes, and
    /// the update tries again.
    mutating func restartNotConfirmed() -> [ReaderAction] {
        guard case .confirmingRestart = mode else { return [] }
        return linkEnded(reason: nil)
    }

    /// The update stops waiting for the restarted reader (`error`: it did not return in
    /// time, or the update was cancelled): the reader is disconnected, or, when the update
    /// gave up on a reader that is still wanted (`stillWanted`, the last attempt's failure)
    /// and the reconnect policy is set, it is reconnected by the policy, as after a drop.
    mutating func restartAbandoned(_ error: CardReaderError, stillWanted: LinkError? = nil) -> [ReaderAction] {
        var actions: [ReaderAction] = []
        switch mode {
        case .confirmingRestart:
            actions = linkEnded(reason: nil)
        case .restarting:
            break
        default:
            return []
        }
        if let stillWanted, reconnects {
            mode = .reconnecting(attempt: 1, after: stillWanted)
            return actions + [.stopOpeningLink, .startReconnecting(after: stillWanted)]
        }
        mode = .disconnected
        return actions + [.stopOpeningLink, .resolveConnectWaiters(.failure(error)), .resolveLinkWaiters(false)]
    }
}
