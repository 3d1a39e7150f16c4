import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// Reconnecting after a drop, as the configured policy says.
extension CardReader {
    /// The link dropped and a policy is set: commands wait, events keep flowing, and
    /// attempts follow the policy until one opens a link, the policy gives up, the reader
    /// refuses this host's bond (which needs a person, not another attempt), or
    /// ``disconnect()`` stops them. The attempts run on the reader, each back-off known to
    /// ``waitUntilQuiet()``.
    func startReconnecting(after reason: LinkError) {
        guard let policy = configuration.reconnect else { return }
        reconnection = startWork { await $0.reconnect(by: policy, after: reason) }
    }

    /// The policy's attempts, each after its back-off, within the policy's overall
    /// deadline if it has one (a wait or an attempt that would pass it is cut short there).
    private func reconnect(by policy: ReconnectPolicy, after reason: LinkError) async {
        let giveUpAt = policy.overallDeadline.map { timing.elapsed() + $0 }
        var attempt = 1
        while policy.allows(attempt: attempt), giveUpAt.map({ timing.elapsed() < $0 }) ?? true {
            guard await announce(attempt: attempt, after: reason) else { return }
            let delay = policy.delay(beforeAttempt: attempt, random: Double.random(in: 0...1))
            let left = giveUpAt.map { $0 - timing.elapsed() }
            if let left, left <= delay {
                guard await sleep(for: max(left, .zero)) else { return }
                break
            }
            guard await sleep(for: delay) else { return }
            let limit = min(configuration.connectTimeout, giveUpAt.map { $0 - timing.elapsed() } ?? configuration.connectTimeout)
            switch await tryReconnecting(within: limit) {
            case .reconnected:
                return
            case .refused(let link):
                await stopReconnecting(refusedBy: link)
                return
            case .failed(let error):
                if Task.isCancelled { return }
                judgeFailedAttempt(error, attempt: attempt)
                attempt += 1
            }
        }
        await giveUpReconnecting()
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
        case failed(CardReaderError)
        /// The reader refused this host's bond, or this host holds none: no attempt helps.
        case refused(LinkError)
    }

    func tryReconnecting(within limit: Duration) async -> ReconnectionAttempt {
        guard machine.reconnectingAfter != nil else { return .failed(.notConnected) }
        switch await attemptLink(within: limit, for: .reconnect) {
        case .success:
            return .reconnected
        case .failure(let error):
            logger.notice("reconnection attempt failed: \(error)")
            if let link = error.link, DisconnectReason(refusal: link) != nil { return .refused(link) }
            return .failed(error)
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

    /// While a connect or a reconnection is under way, a command waits for the link until
    /// `deadline` (its own): one asked for as the host starts, or as the lane restores its
    /// link, goes out once the link is there. It fails as the connect does, at once.
    func waitForLinkUnderWay(until deadline: Duration) async throws(CardReaderError) {
        guard machine.reconnectingAfter != nil || machine.isConnecting else { return }
        guard await awaitLink(until: deadline) else {
            if Task.isCancelled { throw .cancelled }
            if case .lost(let reason) = state { throw .linkLost(reason) }
            if lane.resetting { throw .resetting(nil, timeLeft: nil) }
            throw machine.reconnectingAfter.map { .linkLost($0) } ?? .notConnected
        }
    }
}
