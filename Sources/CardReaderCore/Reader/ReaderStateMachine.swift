import ReaderProtocol

/// One reader's connection as one value: what the link carries and what its drop means
/// (``LinkMode``), the command waiting for its answer (``ExchangeState``), the CANCELs the
/// reader still owes, and the frame decoder. Every event — a notification, a deadline, a
/// drop, a step of a firmware update — is a transition that returns what to do as
/// ``ReaderAction``s; ``CardReader`` does them and holds no other state about the link.
///
/// Nothing here waits, sleeps or does I/O: times come in as arguments (elapsed since the
/// reader was created), and callers waiting for a decision are named by id.
struct ReaderStateMachine {
    /// A link in use, and which connection it is: a late item from an earlier link's
    /// inbound stream carries an older generation and is ignored.
    struct OpenLink {
        let link: any ReaderLink
        let generation: UInt64
        /// Moves the link's inbound items into the reader; cancelled when the link goes.
        let inbound: Task<Void, Never>
    }

    /// Where a firmware update's inputs go while it runs: the link's bytes while the link
    /// carries YModem, the link's drop, the update's deadlines.
    struct UpdateChannel: Sendable {
        let inputs: AsyncStream<FirmwareUpdateInput>.Continuation
    }

    /// What the link carries, and what its drop means.
    enum LinkMode {
        /// No link: before the first connect, or after ``CardReader/disconnect()``.
        case disconnected
        /// The link dropped on its own and nothing brought it back.
        case lost(LinkError)
        /// ``CardReader/connect(timeout:)`` is opening the link.
        case connecting
        /// The link carries frames.
        case commands(OpenLink)
        /// ENTER FIRMWARE UPDATE is out: its successful answer turns the link over to the
        /// transfer from the next byte on (§7.1).
        case enteringFirmwareUpdate(OpenLink, UpdateChannel)
        /// The link carries YModem: notifications go to the update, not the frame decoder.
        case firmwareTransfer(OpenLink, UpdateChannel)
        /// The link dropped during the transfer: the update judges whether that was the
        /// reader restarting on the image it accepted, or a link lost.
        case transferInterrupted(LinkError, UpdateChannel)
        /// The reader accepted the image: the link carries frames, and its drop is the
        /// reader restarting (§7.2), which the update waits for.
        case awaitingRestart(OpenLink, UpdateChannel)
        /// The reader restarted on its new firmware; the update connects again (attempt n).
        case restarting(attempt: Int)
        /// A link to the restarted reader is open; the update asks GET INFO to confirm the
        /// version. A drop is another restart attempt, not a loss.
        case confirmingRestart(OpenLink, attempt: Int)
        /// The link dropped on its own and the reconnect policy is making attempt n.
        case reconnecting(attempt: Int, after: LinkError)
    }

    /// The command the reader is answering, if one is out.
    struct Exchange {
        let id: UInt64
        let code: CommandCode
        /// How long it may wait for its answer; the timeout's error names it.
        var limit: Duration
        /// The caller's task was cancelled: CANCEL went out and its answer ends the call.
        var cancelRequested: Bool
        /// An answer that came meanwhile under another command's code, if one did: the
        /// timeout's error names it (an answer to an earlier command, or a reader that
        /// mixed up the code).
        var answeredInstead: CommandCode? = nil
    }

    /// What the one command the gate lets through is waiting for.
    enum ExchangeState {
        /// Nothing.
        case idle
        /// The reader to answer every CANCEL sent earlier, before the command goes out, so
        /// that no stale answer is outstanding; the id names the waiting caller.
        case settlingCancels(waiter: UInt64)
        /// Its answer.
        case awaitingAnswer(Exchange)
    }

    /// Why a link is being opened: it is used only if the reader still wants it for that.
    enum Purpose {
        case connect
        case reconnect
        case restart
    }

    // Changed only by the transitions below and in the extensions beside this file.
    var mode: LinkMode = .disconnected
    var exchange: ExchangeState = .idle
    /// CANCEL frames sent whose answer has not arrived; while any are out, answers are
    /// stale ones to commands that timed out or were cancelled.
    var unansweredCancels = 0
    var decoder = FrameDecoder()
    /// Counts links, so that a late item from an earlier link is never taken for the current one's.
    var generation: UInt64 = 0
    /// When the last notification that left a frame incomplete arrived.
    var lastNotificationAt: Duration = .zero

    /// Whether a drop starts the reconnect policy rather than ending the connection.
    let reconnects: Bool
    /// How long an incomplete frame may wait for its next byte before it is cut off.
    let incompleteFrameTimeout: Duration
    /// The deadline of a command whose caller cancelled it: the reader answers it, then
    /// CANCEL, within 500 ms (§8), plus the link margin.
    let cancelledCommandLimit: Duration

    init(reconnects: Bool, incompleteFrameTimeout: Duration, cancelledCommandLimit: Duration) {
        self.reconnects = reconnects
        self.incompleteFrameTimeout = incompleteFrameTimeout
        self.cancelledCommandLimit = cancelledCommandLimit
    }

    /// The connection state ``CardReader/state`` reports for the mode.
    var connectionState: ConnectionState {
        switch mode {
        case .disconnected: .disconnected
        case .lost(let reason): .lost(reason)
        case .connecting: .connecting
        case .commands, .enteringFirmwareUpdate, .firmwareTransfer, .transferInterrupted, .awaitingRestart,
            .confirmingRestart:
            .connected
        case .restarting(let attempt), .reconnecting(let attempt, _): .reconnecting(attempt: attempt)
        }
    }

    /// Where a running firmware update's inputs go, in the modes it has one.
    var updateChannel: UpdateChannel? {
        switch mode {
        case .enteringFirmwareUpdate(_, let channel), .firmwareTransfer(_, let channel),
            .transferInterrupted(_, let channel), .awaitingRestart(_, let channel):
            channel
        case .disconnected, .lost, .connecting, .commands, .restarting, .confirmingRestart, .reconnecting:
            nil
        }
    }

    /// The link in use, in whatever mode uses one.
    var openLink: OpenLink? {
        switch mode {
        case .commands(let open), .enteringFirmwareUpdate(let open, _), .firmwareTransfer(let open, _),
            .awaitingRestart(let open, _), .confirmingRestart(let open, _):
            open
        case .disconnected, .lost, .connecting, .transferInterrupted, .restarting, .reconnecting:
            nil
        }
    }
}

// MARK: - Connecting and disconnecting

extension ReaderStateMachine {
    /// What ``CardReader/connect(timeout:)`` does now.
    enum ConnectDecision {
        /// The link is up already.
        case connected
        /// A connect or a reconnection is under way: wait for its outcome.
        case wait
        /// Open a link.
        case open
    }

    mutating func connectRequested() -> ConnectDecision {
        switch mode {
        case .disconnected, .lost:
            mode = .connecting
            return .open
        case .connecting, .reconnecting, .restarting, .confirmingRestart, .transferInterrupted:
            return .wait
        case .commands, .enteringFirmwareUpdate, .firmwareTransfer, .awaitingRestart:
            return .connected
        }
    }

    /// A link opened for `purpose`: nil when the reader no longer wants it (a disconnect
    /// came first), and the link is to be closed. `reading` starts the task that moves the
    /// link's inbound items into the reader, tagged with the generation it is given.
    mutating func linkOpened(
        _ link: any ReaderLink, for purpose: Purpose, reading: (UInt64) -> Task<Void, Never>
    ) -> [ReaderAction]? {
        guard wantsLink(for: purpose) else { return nil }
        var restartAttempt: Int?
        if case .restarting(let attempt) = mode { restartAttempt = attempt }
        var actions: [ReaderAction] = []
        if case .reconnecting = mode {
            // The policy's task ends on its own once this attempt returns.
            actions += [.countReconnect(outcome: "reconnected"), .broadcast(.reconnected)]
        }
        generation += 1
        decoder.reset()
        unansweredCancels = 0
        let open = OpenLink(link: link, generation: generation, inbound: reading(generation))
        if let restartAttempt {
            mode = .confirmingRestart(open, attempt: restartAttempt)
            return []
        }
        mode = .commands(open)
        return actions + [.resolveConnectWaiters(.success(())), .resolveLinkWaiters(true)]
    }

    /// Whether a link opened for `purpose` would be used: a disconnect may have come first.
    func wantsLink(for purpose: Purpose) -> Bool {
        switch (purpose, mode) {
        case (.connect, .connecting), (.reconnect, .reconnecting), (.restart, .restarting): true
        default: false
        }
    }

    /// ``CardReader/connect(timeout:)``'s attempt failed: so do the connects and commands
    /// that waited for it.
    mutating func connectFailed(_ error: CardReaderError) -> [ReaderAction] {
        guard case .connecting = mode else { return [.resolveConnectWaiters(.failure(error))] }
        mode = .disconnected
        return [.resolveConnectWaiters(.failure(error)), .resolveLinkWaiters(false)]
    }

    /// ``CardReader/disconnect()``: a link in use closes as if it had dropped for no reason;
    /// a connect or a reconnection in progress stops.
    mutating func disconnectRequested() -> [ReaderAction] {
        switch mode {
        case .commands, .enteringFirmwareUpdate, .firmwareTransfer, .awaitingRestart:
            return linkEnded(reason: nil)
        case .confirmingRestart:
            let actions = linkEnded(reason: nil)
            mode = .disconnected
            return actions + Self.closedByHost
        case .connecting, .reconnecting, .restarting, .transferInterrupted:
            mode = .disconnected
            return [.stopOpeningLink, .stopReconnecting] + Self.closedByHost
        case .disconnected, .lost:
            return []
        }
    }

    /// What the host's disconnect ends: waiting connects and commands, and the connection.
    private static let closedByHost: [ReaderAction] = [
        .resolveConnectWaiters(.failure(.notConnected)), .resolveLinkWaiters(false), .endConnection(nil),
    ]

    /// The link of `generation` dropped (`reason`), or its inbound stream ended.
    mutating func linkDropped(_ reason: LinkError, generation: UInt64) -> [ReaderAction] {
        guard let open = openLink, open.generation == generation else { return [] }
        return linkEnded(reason: reason)
    }

    /// The link in use is gone: on its own (`reason`) or closed by the host (nil). The
    /// waiting command fails, the decoder forgets, and the mode says what comes next.
    mutating func linkEnded(reason: LinkError?) -> [ReaderAction] {
        let closing = openLink
        var actions = failPendingExchange(with: reason.map { .linkLost($0) } ?? .notConnected)
        unansweredCancels = 0
        decoder.reset()
        actions.append(.cancelTimer(.incompleteFrameQuiet))
        switch (mode, reason) {
        case (.firmwareTransfer(_, let channel), let reason?):
            // The update judges: its last ACK may already wait in the channel.
            mode = .transferInterrupted(reason, channel)
            actions.append(.deliver(.linkLost(reason), to: channel))
        case (.firmwareTransfer(_, let channel), nil), (.enteringFirmwareUpdate(_, let channel), _):
            actions.append(.deliver(.linkLost(reason), to: channel))
            actions += connectionLost(reason)
        case (.awaitingRestart(_, let channel), _):
            mode = .restarting(attempt: 1)
            actions.append(.deliver(.linkLost(reason), to: channel))
        case (.confirmingRestart(_, let attempt), _):
            mode = .restarting(attempt: attempt)
        default:
            actions += connectionLost(reason)
        }
        // Last: closing the link suspends the reader, whose state is settled by then.
        if let closing { actions.append(.closeLink(closing, reason: reason)) }
        return actions
    }

    /// The connection is lost (`reason`) or closed (nil): reconnect if the policy says so,
    /// else the connection is over.
    mutating func connectionLost(_ reason: LinkError?) -> [ReaderAction] {
        guard let reason else {
            mode = .disconnected
            return [.resolveConnectWaiters(.failure(.notConnected)), .resolveLinkWaiters(false), .endConnection(nil)]
        }
        if reconnects {
            mode = .reconnecting(attempt: 1, after: reason)
            return [.countLinkLoss(reason), .startReconnecting(after: reason)]
        }
        mode = .lost(reason)
        return [
            .countLinkLoss(reason), .resolveConnectWaiters(.failure(.linkLost(reason))), .resolveLinkWaiters(false),
            .endConnection(reason),
        ]
    }
}

// MARK: - Reconnecting by the policy

extension ReaderStateMachine {
    /// The policy makes attempt `attempt`: false when reconnecting has stopped.
    mutating func reconnectionAttempt(_ attempt: Int) -> [ReaderAction]? {
        guard case .reconnecting(_, let reason) = mode else { return nil }
        mode = .reconnecting(attempt: attempt, after: reason)
        return [.broadcast(.reconnecting(attempt: attempt, after: reason))]
    }

    /// The policy gave up: the connection is lost for the reason that started it.
    mutating func reconnectionGaveUp() -> [ReaderAction] {
        guard case .reconnecting(_, let reason) = mode else { return [] }
        mode = .lost(reason)
        return [
            .countReconnect(outcome: "gave-up"), .resolveConnectWaiters(.failure(.linkLost(reason))),
            .resolveLinkWaiters(false), .endConnection(reason),
        ]
    }

    /// A reconnection attempt found the reader refusing this host (`link`): the
    /// connection is lost for that reason, which no further attempt changes.
    mutating func reconnectionRefused(_ link: LinkError) -> [ReaderAction] {
        guard case .reconnecting = mode else { return [] }
        mode = .lost(link)
        return [
            .countReconnect(outcome: "refused"), .resolveConnectWaiters(.failure(.linkLost(link))),
            .resolveLinkWaiters(false), .endConnection(link),
        ]
    }

    /// The drop a command waiting for the policy fails with, or nil if none is under way.
    var reconnectingAfter: LinkError? {
        if case .reconnecting(_, let reason) = mode { return reason }
        return nil
    }

    /// A first connect (``CardReader/connect(timeout:)``, not a reconnection) is under way.
    var isConnecting: Bool {
        if case .connecting = mode { return true }
        return false
    }
}
