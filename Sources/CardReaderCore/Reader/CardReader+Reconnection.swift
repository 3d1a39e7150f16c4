import Logging
import ReaderProtocol

/// Reconnecting after a drop, as the configured policy says.
extension CardReader {
    /// The link dropped and a policy is set: commands wait, events keep flowing, and
    /// attempts follow the policy until one opens a link or the policy gives up.
    func startReconnecting(after reason: LinkError, policy: ReconnectPolicy) {
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
    func announce(attempt: Int, after reason: LinkError) -> Bool {
        guard case .reconnecting(let current) = state else { return false }
        if current != attempt { setState(.reconnecting(attempt: attempt)) }
        broadcast(.reconnecting(attempt: attempt, after: reason))
        logger.notice("reconnecting", metadata: ["attempt": "\(attempt)", "after": "\(reason)"])
        return true
    }

    func tryReconnecting(within limit: Duration) async -> Bool {
        guard case .reconnecting = state else { return false }
        let outcome = await attemptLink(within: limit, purpose: .reconnect)
        guard case .success(let link) = outcome else {
            if case .failure(let error) = outcome { logger.notice("reconnection attempt failed: \(error)") }
            return false
        }
        reconnectTask = nil
        lastLoss = nil
        install(link)
        metrics.reconnect(outcome: "reconnected")
        broadcast(.reconnected)
        resolveConnectWaiters(.success(()))
        resolveLinkWaiters(true)
        return true
    }

    func giveUpReconnecting() {
        guard case .reconnecting = state, let reason = lastLoss else { return }
        reconnectTask = nil
        lastLoss = nil
        logger.warning("gave up reconnecting", metadata: ["after": "\(reason)"])
        metrics.reconnect(outcome: "gave-up")
        setState(.lost(reason))
        resolveConnectWaiters(.failure(.linkLost(reason)))
        resolveLinkWaiters(false)
        endConnection(reason: reason)
    }

    /// While reconnecting, a command waits for the link up to `limit` (its deadline).
    func waitWhileReconnecting(upTo limit: Duration) async throws(CardReaderError) {
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

    func resolveLinkWaiter(_ id: UInt64, _ back: Bool) {
        linkWaiters.removeValue(forKey: id)?.resume(returning: back)
    }

    func resolveLinkWaiters(_ back: Bool) {
        let waiters = linkWaiters.values
        linkWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: back) }
    }
}
