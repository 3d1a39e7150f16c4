import Logging
import ReaderProtocol

/// What the link delivers: notifications into the frame decoder, frames to the waiting
/// command or to events, and the link's drop.
extension CardReader {
    func receive(_ item: LinkInbound, generation: UInt64) async {
        guard generation == self.generation else { return }
        switch item {
        case .notification(let bytes):
            if let ymodemInput {
                ymodemInput.yield(.bytes(bytes))
                return
            }
            decoder.decode(bytes) { handle($0) }
            if decoder.hasIncompleteFrame {
                lastNotificationAt = timing.elapsed()
                timeline.cancel(.incompleteFrameQuiet)
                schedule(.incompleteFrameQuiet, at: cutOffDue)
            } else {
                timeline.cancel(.incompleteFrameQuiet)
            }
        case .dropped(let reason):
            guard let link else { return }
            logger.notice("link lost: \(reason)")
            await tearDown(link: link, reason: reason)
        }
    }

    func handle(_ event: FrameDecoder.Event) {
        switch event {
        case .frame(let frame, _):
            route(frame)
        case .damage(let damage):
            logger.warning("damaged bytes from the reader: \(damage)")
        }
    }

    /// When the incomplete frame is cut off if nothing more arrives.
    var cutOffDue: Duration { lastNotificationAt + configuration.incompleteFrameTimeout }

    /// Cuts off an incomplete frame whose bytes stopped coming at least the timeout ago. Its
    /// timer calls it when it comes due; a deadline calls it before anything is decided or
    /// sent.
    func cutOffStaleFrame() {
        guard decoder.hasIncompleteFrame, timing.elapsed() >= cutOffDue else { return }
        cutOffIncompleteFrame()
    }

    func cutOffIncompleteFrame() {
        logger.debug("an incomplete frame received nothing for \(configuration.incompleteFrameTimeout): cut off")
        decoder.finish { handle($0) }
    }

    func inboundEnded(generation: UInt64) async {
        guard generation == self.generation, let link else { return }
        await tearDown(link: link, reason: LinkError(.linkClosed, "the link ended without a reason"))
    }

    func route(_ frame: Frame) {
        logger.trace("← \(frame.code.commandName ?? "\(frame.code)")", metadata: ["frame": "\(frame)"])
        if frame.code.isEvent {
            do {
                let event = try ReaderEvent(frame: frame)
                if case .batteryLow(let percent) = event { metrics.battery(percent) }
                broadcast(CardReaderEvent(event))
            } catch {
                logger.warning("malformed event from the reader: \(error)")
            }
            return
        }
        if frame.code == .cancel, unansweredCancels > 0 {
            unansweredCancels -= 1
            if unansweredCancels == 0, let barrier { releaseBarrier(barrier.id, settled: true) }
            return
        }
        guard let current = exchange, current.result == nil, frame.code == current.code else {
            logger.debug("discarded a stale or unexpected answer", metadata: ["code": "\(frame.code)"])
            return
        }
        if current.cancelRequested {
            finish(current.id, .failure(.cancelled))
            return
        }
        do {
            let response = try ReaderResponse(frame: frame)
            if frame.code == .enterFirmwareUpdate, response.status == .success, let input = pendingYModemInput {
                // From the next byte on the link carries YModem (§7.1). A byte that came in
                // the same notification as this answer is lost; the reader repeats its `C`.
                ymodemInput = input
                pendingYModemInput = nil
            }
            finish(current.id, .success(response))
        } catch {
            finish(current.id, .failure(.malformedResponse(frame.code, error)))
        }
    }

    /// The link is gone on its own (`reason`) or closed by the host (nil): count it,
    /// reconnect if the policy says so, else end the connection.
    func linkLost(_ reason: LinkError?) {
        if let reason { metrics.linkLost(reason) }
        if let reason, let policy = configuration.reconnect {
            startReconnecting(after: reason, policy: policy)
        } else {
            setState(reason.map { .lost($0) } ?? .disconnected)
            endConnection(reason: reason)
        }
    }

    func tearDown(link: any ReaderLink, reason: LinkError?) async {
        guard self.link != nil else { return }
        self.link = nil
        inboundTask?.cancel()
        inboundTask = nil
        if let current = exchange {
            finish(current.id, .failure(reason.map { .linkLost($0) } ?? .notConnected))
        }
        if let barrier { releaseBarrier(barrier.id, settled: false) }
        unansweredCancels = 0
        timeline.cancel(.incompleteFrameQuiet)
        decoder.reset()
        if restartExpected {
            restartDropped()
        } else if let ymodemInput, let reason {
            // Mid-update, the update judges a drop: the reader's restart, if its ACK of the
            // image still waits in the YModem input, or a link lost mid-transfer.
            dropDuringUpdate = reason
            ymodemInput.yield(.linkLost(reason))
        } else {
            ymodemInput?.yield(.linkLost(reason))
            linkLost(reason)
        }
        await link.close()
        logger.info("disconnected", metadata: ["reason": "\(reason?.description ?? "by the host")"])
    }
}
