import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// The reader's life between transactions: the keep-alive, the reset it announces, and why
/// each drop happened.
extension CardReader {
    /// How close to an announced reset a drop counts as that reset, and how close to the
    /// end of the idle time a drop counts as the idle rule: the reader announces its reset
    /// in whole seconds, and its clock and the link's latency differ from this host's by
    /// far less than the rest.
    static let dropTimingTolerance = Duration.seconds(2)

    /// How late after the end of the idle time a drop still counts as the idle rule: the
    /// reader's drop reaches this host through its controller and bluetoothd, up to a
    /// supervision timeout late when the terminate is lost (measured about 2 s through
    /// bluetoothd between two virtual controllers).
    static let idleDropLateness = Duration.seconds(6)

    // MARK: - Keep-alive

    /// The link carried a command, an answer, or opened: the keep-alive is due one interval
    /// from now.
    func noteActivity() {
        lane.lastActivity = timing.elapsed()
        guard let interval = configuration.keepAliveInterval else { return }
        timeline.cancel(.keepAliveDue)
        schedule(.keepAliveDue, after: interval)
    }

    /// The link has carried no command for the keep-alive interval: GET INFO, unless a
    /// command is running (its answer moves the keep-alive on), an update holds the link, or
    /// the reader resets before GET INFO could be answered.
    func keepAliveDue() {
        guard case .commands = machine.mode else { return }  // a new link arms it again
        let resetNear = lane.resetAt.map { timing.elapsed() + Self.shortAnswerTime + configuration.linkMargin >= $0 } ?? false
        guard lane.update == nil, lane.requiredPending == nil, !resetNear, gate.tryAcquire() else {
            // Busy, updating, or the reset about to come: look again shortly, so that a
            // command that ends without an answer (or a reset that does not come) never
            // leaves the link without its keep-alive.
            schedule(.keepAliveDue, after: Self.keepAliveRetry)
            return
        }
        startWork { await $0.sendKeepAlive() }
    }

    /// How soon a keep-alive that could not go out looks again.
    static let keepAliveRetry = Duration.seconds(5)

    private func sendKeepAlive() async {
        defer { gate.release() }
        lane.keepAliveOut = true
        defer { lane.keepAliveOut = false }
        do throws(CardReaderError) {
            _ = try await performHoldingGate(.getInfo, answerTime: Self.shortAnswerTime)
            logger.debug("keep-alive answered")
        } catch {
            logger.notice("keep-alive failed: \(error)")
        }
    }

    // MARK: - Why the link ended

    /// The open link dropped (`link`): works out why, from what this reader saw.
    func recordDrop(_ link: LinkError) {
        let now = timing.elapsed()
        let reason: DisconnectReason
        switch machine.mode {
        case .awaitingRestart, .confirmingRestart:
            reason = DisconnectReason(.firmwareRestart, link: link)
        case .firmwareTransfer:
            // The reader restarts as soon as it has verified the image, and its drop can come
            // before this host has read the last acknowledgement: the transfer's end decides.
            lane.dropDuringTransfer = link
            clearAnnouncedReset()
            return
        default:
            reason = inferredReason(for: link, at: now)
        }
        // The announced reset is behind when this drop is it, or a restart on new firmware
        // (which schedules its resets anew); after any other drop it is still ahead: the
        // reader resets at its time whatever its links did meanwhile.
        switch reason.code {
        case .dailyReset:
            meetAnnouncedReset()
        case .firmwareRestart:
            clearAnnouncedReset()
        default:
            break
        }
        lane.lastDisconnect = reason
        logger.notice("link ended", metadata: ["reason": "\(reason.code)", "link": "\(link)"])
    }

    /// The firmware transfer ended, the reader having accepted the image or not
    /// (`accepted`): a drop during it was the reader's restart, or the reader going away.
    func judgeDropDuringTransfer(accepted: Bool) {
        guard let link = lane.dropDuringTransfer else { return }
        lane.dropDuringTransfer = nil
        if accepted {
            lane.lastDisconnect = DisconnectReason(.firmwareRestart, link: link)
        } else if let refusal = DisconnectReason(refusal: link) {
            lane.lastDisconnect = refusal
        } else {
            lane.lastDisconnect = DisconnectReason(link.isHostBluetoothLoss ? .bluetoothUnavailable : .readerGone, link: link)
        }
        logger.notice("link ended", metadata: ["reason": "\(lane.lastDisconnect?.code.rawValue ?? "")", "link": "\(link)"])
    }

    /// The first attempt after a drop found this host's Bluetooth gone (bluetoothd, the
    /// bus, the adapter): the drop was that, whatever it looked like (a link that cannot
    /// tell its host's loss from the reader's drop reads as the reader's); a reader that
    /// reset or went away at that very moment is back when Bluetooth is.
    private func reviseDropReason(afterFirstAttemptFailed error: CardReaderError) {
        guard let link = error.link, link.isHostBluetoothLoss, let dropped = lane.lastDisconnect,
            dropped.code != .bluetoothUnavailable, dropped.code != .host
        else { return }
        lane.lastDisconnect = DisconnectReason(.bluetoothUnavailable, link: link)
        lane.resetting = false
        timeline.cancel(.resetSilenceOver)
        logger.notice("the drop was Bluetooth going away", metadata: ["was taken for": "\(dropped.code)", "link": "\(link)"])
        publishStatus()
    }

    /// Attempt `attempt` after a drop failed with `error`. One failing once the announced
    /// reset is due met the reset (the reader restarted while this host was reconnecting,
    /// say a reconnection slow enough to overlap it): the status says resetting, and the
    /// reader is awaited as after a reset's drop.
    func judgeFailedAttempt(_ error: CardReaderError, attempt: Int) {
        if attempt == 1 { reviseDropReason(afterFirstAttemptFailed: error) }
        guard !lane.resetting, let resetAt = lane.resetAt, timing.elapsed() >= resetAt - Self.dropTimingTolerance,
            lane.lastDisconnect?.code != .bluetoothUnavailable, error.link?.isHostBluetoothLoss != true
        else { return }
        lane.lastDisconnect = DisconnectReason(.dailyReset, link: error.link)
        meetAnnouncedReset()
        logger.notice("the reader's announced reset came while reconnecting", metadata: ["attempt": "\(attempt)"])
        publishStatus()
    }

    private func inferredReason(for link: LinkError, at now: Duration) -> DisconnectReason {
        if let refusal = DisconnectReason(refusal: link) { return refusal }
        if link.isHostBluetoothLoss { return DisconnectReason(.bluetoothUnavailable, link: link) }
        // The reset, or the idle rule, when the drop came at its time; the nearer if both.
        let commandOut = if case .idle = machine.exchange { false } else { true }
        let idleEnds = commandOut ? nil : lane.lastActivity + configuration.readerIdleTimeout
        let candidates: [(DisconnectReason.Code, Duration)] = [
            lane.resetAt.map { (.dailyReset, $0) }, idleEnds.map { (.idle, $0) },
        ].compactMap(\.self)
        // The reset may come late (the reader's countdown is in whole seconds, its restart
        // takes its time); the idle rule comes at its time, its drop up to a supervision
        // timeout late.
        let matching = candidates.filter {
            $0.0 == .dailyReset
                ? now >= $0.1 - Self.dropTimingTolerance
                : now >= $0.1 - Self.dropTimingTolerance && now <= $0.1 + Self.idleDropLateness
        }
        let nearest = matching.min { Self.distance(now, $0.1) < Self.distance(now, $1.1) }
        return DisconnectReason(nearest?.0 ?? .readerGone, link: link)
    }

    private static func distance(_ a: Duration, _ b: Duration) -> Duration { a > b ? a - b : b - a }

    /// The reader announced its reset (`E0 04`) in `delay`.
    func recordResetAnnounced(in delay: Duration) {
        let resetAt = timing.elapsed() + delay
        lane.resetAt = resetAt
        lane.resetExpected = wallClock.now().advanced(by: delay)
        timeline.cancel(.resetOverdue)
        schedule(.resetOverdue, at: resetAt + Self.resetSilence)
        logger.info("the reader announced its scheduled reset", metadata: ["in": "\(delay)"])
        publishStatus()
    }

    /// A new link is open: a reset whose time is past is behind (the reader reset while
    /// the link was down; one this link could still meet is ahead), the idle time counts
    /// from now, and the link's battery levels (if it carries them) go into the status.
    func linkStarted(_ link: any ReaderLink) {
        lane.resetting = false
        timeline.cancel(.resetSilenceOver)
        if let resetAt = lane.resetAt, timing.elapsed() >= resetAt + Self.dropTimingTolerance { clearAnnouncedReset() }
        lane.linkOpenedAt = timing.elapsed()
        noteActivity()
        publishStatus()
        considerScheduledUpdate()
        guard let levels = link.batteryLevels, let generation = machine.openLink?.generation else { return }
        Task { [weak self] in
            for await percent in levels {
                guard let self, await self.batteryReported(percent, generation: generation) else { return }
            }
        }
    }

    /// The Battery service reported `percent` on the link of `generation`; false once that
    /// link is not the one in use.
    private func batteryReported(_ percent: UInt8, generation: UInt64) -> Bool {
        guard machine.openLink?.generation == generation else { return false }
        recordBattery(percent, from: .batteryService)
        lane.batteryServiceLink = generation
        return true
    }

    /// How long after an announced reset's time the reader counts as restarted (or the
    /// reset as not coming): a reset restarts the reader in seconds.
    static let resetSilence = Duration.seconds(30)

    /// The announced reset came: the reader is restarting, and is awaited until
    /// ``resetSilence`` has passed.
    private func meetAnnouncedReset() {
        lane.resetting = true
        schedule(.resetSilenceOver, after: Self.resetSilence)
        clearAnnouncedReset()
    }

    /// The announced reset is past, or over.
    private func clearAnnouncedReset() {
        lane.resetAt = nil
        lane.resetExpected = nil
        timeline.cancel(.resetOverdue)
    }

    /// The announced reset's time is long past and the link never dropped: the reader did
    /// not reset (it postponed it, or its countdown was off). Commands and the keep-alive go
    /// on as before.
    func resetOverdue() {
        guard lane.resetAt != nil else { return }
        logger.notice("the reader did not reset at the time it announced")
        clearAnnouncedReset()
        if case .commands = machine.mode { noteActivity() }
        publishStatus()
    }

    /// Long enough since the reset's drop that a reader still away is not restarting: the
    /// status says reconnecting, and commands fail `link-lost`.
    func resetSilenceOver() {
        guard lane.resetting else { return }
        lane.resetting = false
        publishStatus()
    }

    // MARK: - Waiting for the reader's turn

    /// Before `command` (deadline `limit`) goes out: if the reader announced a reset that
    /// could come before the answer, waits for the reset and the reader's return until
    /// `deadline`, or fails with ``CardReaderError/Code/resetting``.
    func waitOutAnnouncedReset(_ command: CommandCode, limit: Duration, until deadline: Duration) async throws(CardReaderError) {
        guard let resetAt = lane.resetAt else { return }
        let now = timing.elapsed()
        guard now + limit >= resetAt - Self.dropTimingTolerance else { return }
        logger.info(
            "waiting for the reader's announced reset", metadata: ["command": "\(command)", "reset in": "\(resetAt - now)"])
        guard await awaitLink(until: deadline) else {
            if Task.isCancelled { throw .cancelled }
            throw .resetting(command, timeLeft: lane.resetAt.map { max(.zero, $0 - timing.elapsed()) })
        }
    }

    /// Waits until a link opens (after a drop, a reset, a reconnection) or `deadline`
    /// passes; true when a link opened.
    func awaitLink(until deadline: Duration) async -> Bool {
        let id = makeID()
        schedule(.linkOverdue(id), at: deadline)
        let back = await withTaskCancellationHandler {
            await withCheckedContinuation { linkWaiters[id] = $0 }
        } onCancel: {
            Task { await self.resolveLinkWaiter(id, false) }
        }
        timeline.cancel(.linkOverdue(id))
        return back
    }

    /// The gate ticket's wait passed its deadline: it leaves the queue.
    func gateOverdue(_ ticket: UInt64) {
        overdueTickets.insert(ticket)
        gate.abandon(ticket)
    }
}
