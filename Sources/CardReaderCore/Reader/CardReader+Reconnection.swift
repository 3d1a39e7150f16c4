import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// Reconnecting after a drop, as the configured policy says.
extension CardReader {
    /// The link dropped and a policy is set: commands wait, events keep flowing, and
    /// attempts follow the policy until one opens a link or the policy gives up.
    func startReconnecting(after reason: LinkError) {
        guard let policy = configuration.reconnect else { return }
        let clock = clock
        let connectTimeout = configuration.connectTimeout
        reconnection = Task { [weak self] in
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
    func announce(attempt: Int, after reason: LinkError) async -> Bool {
        guard let actions = change({ $0.reconnectionAttempt(attempt) }) else { return false }
        logger.notice("reconnecting", metadata: ["attempt": "\(attempt)", "after": "\(reason)"])
        await run(actions)
        return true
    }

    func tryReconnecting(within limit: Duration) async -> Bool {
        guard machine.reconnectingAfter != nil else { return false }
        switch await attemptLink(within: limit, for: .reconnect) {
        case .success:
            return true
        case .failure(let error):
            logger.notice("reconnection attempt failed: \(error)")
            return false
        }
    }

    func giveUpReconnecting() async {
        guard let reason = machine.reconnectingAfter else { return }
        logger.warning("gave up reconnecting", metadata: ["after": "\(reason)"])
        await run(change { $0.reconnectionGaveUp() })
    }

    /// While reconnecting, a command waits for the link up to `limit` (its deadline).
    func waitWhileReconnecting(upTo limit: Duration) async throws(CardReaderError) {
        guard machine.reconnectingAfter != nil else { return }
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
            if case .lost(let reason) = state { throw .linkLost(reason) }
            throw machine.reconnectingAfter.map { .linkLost($0) } ?? .notConnected
        }
    }
}
