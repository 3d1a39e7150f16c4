import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// Reconnecting after a drop, as the configured policy says.
extension CardReader {
    /// The link dropped and a policy is set: commands wait, events keep flowing, and
    /// attempts follow the policy until one opens a link, the policy gives up, or the reader
    /// refuses this host's bond (which needs a person, not another attempt).
    func startReconnecting(after reason: LinkError) {
        guard let policy = configuration.reconnect else { return }
        let clock = clock
        let connectTimeout = configuration.connectTimeout
        reconnection = Task { [weak self] in
            enum Outcome { case reconnected, gaveUp, refused(LinkError), stopped }
            let outcome = await withTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    var attempt = 1
                    while policy.allows(attempt: attempt) {
                        guard let self, await self.announce(attempt: attempt, after: reason) else { return .stopped }
                        let delay = policy.delay(beforeAttempt: attempt, random: Double.random(in: 0...1))
                        guard (try? await clock.sleep(for: delay)) != nil else { return .stopped }
                        switch await self.tryReconnecting(within: connectTimeout) {
                        case .reconnected: return .reconnected
                        case .refused(let link): return .refused(link)
                        case .failed: attempt += 1
                        }
                    }
                    return .gaveUp
                }
                if let overall = policy.overallDeadline {
                    group.addTask {
                        guard (try? await clock.sleep(for: overall)) != nil else { return .stopped }
                        return .gaveUp
                    }
                }
                let first = await group.next() ?? .stopped
                group.cancelAll()
                return first
            }
            switch outcome {
            case .gaveUp: await self?.giveUpReconnecting()
            case .refused(let link): await self?.stopReconnecting(refusedBy: link)
            case .reconnected, .stopped: break
            }
        }
    }

    /// Reports attempt `attempt`; false when reconnecting has stopped.
    func announce(attempt: Int, after reason: LinkError) async -> Bool {
        guard let actions = change({ $0.reconnectionAttempt(attempt) }) else { return false }
        logger.notice("reconnecting", metadata: ["attempt": "\(attempt)", "after": "\(reason)"])
        await run(actions)
        return true
    }

    enum ReconnectionAttempt {
        case reconnected
        case failed
        /// The reader refused this host's bond, or this host holds none: no attempt helps.
        case refused(LinkError)
    }

    func tryReconnecting(within limit: Duration) async -> ReconnectionAttempt {
        guard machine.reconnectingAfter != nil else { return .failed }
        switch await attemptLink(within: limit, for: .reconnect) {
        case .success:
            return .reconnected
        case .failure(let error):
            logger.notice("reconnection attempt failed: \(error)")
            if let link = error.link, DisconnectReason(refusal: link) != nil { return .refused(link) }
            return .failed
        }
    }

    func giveUpReconnecting() async {
        guard let reason = machine.reconnectingAfter else { return }
        logger.warning("gave up reconnecting", metadata: ["after": "\(reason)"])
        lane.resetting = false
        await run(change { $0.reconnectionGaveUp() })
    }

    /// The reader refused this host's bond: the connection is lost with that reason and its fix.
    func stopReconnecting(refusedBy link: LinkError) async {
        guard machine.reconnectingAfter != nil else { return }
        logger.warning("stopped reconnecting: \(link)")
        lane.lastDisconnect = DisconnectReason(refusal: link)
        lane.resetting = false
        await run(change { $0.reconnectionRefused(link) })
    }

    /// While reconnecting, a command waits for the link until `deadline` (its own).
    func waitWhileReconnecting(until deadline: Duration) async throws(CardReaderError) {
        guard machine.reconnectingAfter != nil else { return }
        guard await awaitLink(until: deadline) else {
            if Task.isCancelled { throw .cancelled }
            if case .lost(let reason) = state { throw .linkLost(reason) }
            if lane.resetting { throw .resetting(nil, timeLeft: nil) }
            throw machine.reconnectingAfter.map { .linkLost($0) } ?? .notConnected
        }
    }
}
