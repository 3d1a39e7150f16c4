import Logging
import ReaderProtocol
import Synchronization
@_spi(Timers) import Timing

/// The firmware update's steps inside the reader: pre-flight, ENTER FIRMWARE
/// UPDATE, the YModem transfer (the link's bytes go to the YModem sender, not the frame
/// decoder), the restart, the reconnection and the confirming GET INFO. Which of them the
/// link is in is the state machine's ``ReaderStateMachine/LinkMode``; the update's inputs
/// (the link's bytes, its drop, deadlines, cancellation) come in order on one stream.
extension CardReader {
    func runFirmwareUpdate(
        image: FirmwareImage, options: FirmwareUpdateOptions, report: @Sendable (FirmwareUpdateProgress) -> Void
    ) async throws(CardReaderError) -> FirmwareUpdateReport {
        let outcome: Result<FirmwareUpdateReport, CardReaderError> = await withTaskCancellationHandler {
            do throws(CardReaderError) {
                return .success(try await updateFirmwareSteps(image: image, options: options, report: report))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            self.updateCancelled.store(true, ordering: .relaxed)
        }
        switch outcome {
        case .success(let report):
            metrics.firmwareUpdate(outcome: "updated")
            return report
        case .failure(let error):
            metrics.firmwareUpdate(outcome: error.identifier)
            throw error
        }
    }

    private func updateFirmwareSteps(
        image: FirmwareImage, options: FirmwareUpdateOptions, report: @Sendable (FirmwareUpdateProgress) -> Void
    ) async throws(CardReaderError) -> FirmwareUpdateReport {
        let started = timing.elapsed()
        var progress = FirmwareUpdateProgress(
            phase: .checking, bytesSent: 0, totalBytes: image.bytes.count, elapsed: .zero, bytesPerSecond: nil)
        func enter(_ phase: FirmwareUpdateProgress.Phase) {
            progress.phase = phase
            progress.elapsed = timing.elapsed() - started
            if lane.update != nil {
                lane.update = progress
                publishStatus()
                resumeQuietWaitersIfQuiet()
            }
            report(progress)
        }
        enter(.checking)
        try await acquireGate(for: .enterFirmwareUpdate, until: started + options.queueTimeout)
        defer { gate.release() }
        // From here to the end, commands fail at once with `updating` (unless this update
        // is cancelled and ending), and the status says so.
        let cancelled = Task.isCancelled
        updateCancelled.store(cancelled, ordering: .relaxed)
        lane.requiredPending = nil
        lane.update = progress
        publishStatus()
        defer {
            lane.update = nil
            publishStatus()
            resumeQuietWaitersIfQuiet()
        }
        let (before, alreadyInstalled) = try await checkBeforeUpdating(to: image, options: options)
        if alreadyInstalled {
            logger.info("firmware already installed", metadata: ["version": "\(image.version)"])
            enter(.completed)
            return FirmwareUpdateReport(
                previousVersion: before.firmwareVersion, version: image.version, bytes: 0, duration: timing.elapsed() - started,
                transferDuration: .zero, resentBlocks: 0, fellBackToSmallBlocks: false, alreadyInstalled: true)
        }

        enter(.entering)
        let (inputs, input) = AsyncStream.makeStream(of: FirmwareUpdateInput.self)
        defer { input.finish() }
        try await enterFirmwareUpdate(imageSize: image.bytes.count, inputs: input)

        let transferStarted = timing.elapsed()
        let outcome = await withTaskCancellationHandler {
            await transfer(image, options: options, inputs: inputs) { sent in
                progress.bytesSent = sent
                let seconds = Double((timing.elapsed() - transferStarted) / .milliseconds(1)) / 1000
                progress.bytesPerSecond = seconds > 0 && sent > 0 ? Double(sent) / seconds : nil
                enter(sent < image.bytes.count ? .transferring : .verifying)
            }
        } onCancel: {
            input.yield(.cancel)
        }
        let transferDuration = timing.elapsed() - transferStarted
        let accepted = if case .success = outcome { true } else { false }
        judgeDropDuringTransfer(accepted: accepted)
        await run(change { $0.transferEnded(accepted: accepted) })
        let sender: YModemSender
        switch outcome {
        case .success(let finished):
            sender = finished
        case .failure(let error):
            logger.notice("firmware update failed: \(error)")
            throw .firmwareUpdateFailed(error)
        }

        // The reader verified the image: from here on, whatever happens, it runs the image
        // once restarted. A cancel no longer aborts anything; it only stops the waiting for
        // the reader's return. The drop is awaited even then (at most the restart deadline),
        // so that the link an update leaves is never the one the reader is dropping.
        enter(.restarting)
        await Task { await self.awaitRestart(options: options, inputs: inputs) }.value
        enter(.reconnecting)
        let after: ReaderInfo
        do throws(CardReaderError) {
            after = try await reconnectAfterRestart(within: options.returnTimeout) { enter(.confirming) }
        } catch where error.code == .cancelled {
            logger.notice("firmware installed; cancelled before its version was confirmed", metadata: ["version": "\(image.version)"])
            throw .firmwareUpdateFailed(.installedUnconfirmed(version: image.version, previousVersion: before.firmwareVersion))
        }
        guard after.firmwareVersion == image.version else {
            throw .firmwareUpdateFailed(.wrongVersion(expected: image.version, found: after.firmwareVersion))
        }
        enter(.completed)
        logger.info("firmware updated", metadata: ["version": "\(image.version)"])
        return FirmwareUpdateReport(
            previousVersion: before.firmwareVersion, version: image.version, bytes: image.bytes.count,
            duration: timing.elapsed() - started, transferDuration: transferDuration,
            resentBlocks: sender.resentBlocks, fellBackToSmallBlocks: sender.blockSize < 1024)
    }

    /// GET INFO, then the image against the reader's model, its version against the
    /// reader's and the battery against the minimum: nothing is sent to a reader that would
    /// refuse or brick on it. A reader already on the image's version needs nothing sent.
    private func checkBeforeUpdating(to image: FirmwareImage, options: FirmwareUpdateOptions) async throws(CardReaderError)
        -> (before: ReaderInfo, alreadyInstalled: Bool)
    {
        try checkLinkSecurity(for: .enterFirmwareUpdate)
        let before = try await infoHoldingGate()
        do throws(FirmwareImageError) {
            try image.check(model: before.model ?? "(no model in GET INFO)")
        } catch {
            throw .firmwareUpdateFailed(.invalidImage(error))
        }
        if linkSecurity == .encrypted, !LinkSecurityPolicy.requiresEncryption(firmwareRevision: image.version) {
            throw .firmwareUpdateFailed(.securityDowngrade(imageVersion: image.version))
        }
        if try checkVersions(image: image.version, reader: before.firmwareVersion, options: options) {
            return (before, true)
        }
        try checkBattery(reported: before.batteryPercent, options: options)
        try checkNoResetBefore(updateOf: image, options: options)
        logger.info(
            "firmware update", metadata: ["from": "\(before.firmwareVersion ?? "?")", "to": "\(image.version)"])
        return (before, false)
    }

    /// Refuses an update on a battery below the minimum, or whose level is unknown (GET INFO
    /// without it, and no Battery-service reading on this link), unless the reader has none.
    private func checkBattery(reported: UInt8?, options: FirmwareUpdateOptions) throws(CardReaderError) {
        guard !options.readerHasNoBattery else { return }
        // A Battery-service reading counts when this link gave it.
        let fromService = lane.battery?.source == .batteryService && lane.batteryServiceLink == machine.openLink?.generation
        let level = reported ?? (fromService ? lane.battery?.percent : nil)
        guard let level else { throw .firmwareUpdateFailed(.batteryUnknown(required: options.minimumBattery)) }
        if level < options.minimumBattery {
            throw .firmwareUpdateFailed(.batteryTooLow(percent: level, required: options.minimumBattery))
        }
    }

    /// Refuses an update that the reader's announced reset would interrupt: the transfer at
    /// 1 KB/s (slower than any link this reader runs on), plus the restart's bounds.
    private func checkNoResetBefore(updateOf image: FirmwareImage, options: FirmwareUpdateOptions) throws(CardReaderError) {
        guard let resetAt = lane.resetAt else { return }
        let needed = Duration.milliseconds(image.bytes.count) + options.restartDisconnectTimeout + options.returnTimeout
        let left = resetAt - timing.elapsed()
        guard needed >= left else { return }
        logger.notice("firmware update not started: the reader resets first", metadata: ["reset in": "\(left)"])
        throw .resetting(.enterFirmwareUpdate, timeLeft: max(.zero, left))
    }

    /// Whether the reader runs the image's version already (nothing to send). Only a newer
    /// image is sent, unless the options allow an older one, or versions that do not
    /// compare (then neither is taken for the other, whatever their text).
    private func checkVersions(image: String, reader: String?, options: FirmwareUpdateOptions) throws(CardReaderError)
        -> Bool
    {
        guard let imageVersion = FirmwareVersion(image), let reader, let readerVersion = FirmwareVersion(reader) else {
            guard options.allowsIncomparableVersions else {
                throw .firmwareUpdateFailed(.versionsNotComparable(imageVersion: image, readerVersion: reader))
            }
            return false
        }
        if imageVersion < readerVersion, !options.allowsOlderImage {
            throw .firmwareUpdateFailed(.olderImage(imageVersion: image, readerVersion: reader))
        }
        return imageVersion == readerVersion
    }

    /// ENTER FIRMWARE UPDATE: on its 00 answer the link carries YModem, its bytes going to
    /// `inputs`; any other answer is the reader refusing the update.
    private func enterFirmwareUpdate(
        imageSize: Int, inputs: AsyncStream<FirmwareUpdateInput>.Continuation
    ) async throws(CardReaderError) {
        guard change({ $0.firmwareUpdateEntering(ReaderStateMachine.UpdateChannel(inputs: inputs)) }) else {
            if case .lost(let reason) = state { throw .linkLost(reason) }
            throw .notConnected
        }
        let entered: ReaderResponse
        do throws(CardReaderError) {
            entered = try await performHoldingGate(
                .enterFirmwareUpdate(imageSize: UInt32(imageSize)), answerTime: Self.shortAnswerTime)
        } catch {
            _ = change { $0.firmwareUpdateEntered() }
            throw error
        }
        guard change({ $0.firmwareUpdateEntered() }), entered.status == .success else {
            throw .firmwareUpdateFailed(.refused(entered.status))
        }
    }

    private func infoHoldingGate() async throws(CardReaderError) -> ReaderInfo {
        let response = try await performHoldingGate(.getInfo, answerTime: Self.shortAnswerTime)
        guard response.status == .success else { throw .status(response.status, of: .getInfo) }
        guard case .info(let info) = response.body else { throw Self.unexpected(response.body, answering: .getInfo) }
        return info
    }

    /// Runs the YModem sender over the link until it finishes (returning it, finished) or
    /// fails.
    private func transfer(
        _ image: FirmwareImage, options: FirmwareUpdateOptions,
        inputs: AsyncStream<FirmwareUpdateInput>, acknowledged: (Int) -> Void
    ) async -> Result<YModemSender, FirmwareUpdateError> {
        var sender = YModemSender(
            fileName: options.fileName ?? "\(image.model)-\(image.version).vfw", file: image.bytes,
            configuration: ymodemLimits(options))
        var actions = sender.start()
        var deadline: UInt64 = 0
        var reported = -1
        var inputs = inputs.makeAsyncIterator()
        // When the last write was acknowledged, until the reader's next bytes; and the
        // longest the reader's bytes have taken after a write in this transfer.
        var lastWriteAcknowledged: Duration?
        var slowestAnswer: Duration?
        while true {
            for action in actions {
                switch action {
                case .send(let bytes):
                    do throws(CardReaderError) {
                        try await write(bytes: bytes)
                    } catch {
                        return .failure(.linkLost(block: Self.block(of: sender), Self.linkError(of: error)))
                    }
                    lastWriteAcknowledged = timing.elapsed()
                case .awaitAnswer(let limit):
                    timeline.cancel(.updateDeadline(deadline))
                    deadline = makeID()
                    let wait = sender.isWaitingForQuiet ? Self.quietAfterRefusal(atMost: limit, slowestAnswer: slowestAnswer) : limit
                    schedule(.updateDeadline(deadline), after: wait)
                case .finished:
                    timeline.cancel(.updateDeadline(deadline))
                    acknowledged(sender.acknowledgedBytes)
                    if sender.resentBlocks > 0 {
                        logger.info(
                            "blocks sent again during the transfer",
                            metadata: ["resent": "\(sender.resentBlocks)", "blockSize": "\(sender.blockSize)"])
                    }
                    return .success(sender)
                case .failed(let error):
                    timeline.cancel(.updateDeadline(deadline))
                    return .failure(FirmwareUpdateError(error))
                }
            }
            if sender.acknowledgedBytes != reported {
                reported = sender.acknowledgedBytes
                acknowledged(reported)
            }
            switch await inputs.next(isolation: #isolation) {
            case .bytes(let bytes):
                if let acknowledged = lastWriteAcknowledged {
                    slowestAnswer = max(slowestAnswer ?? .zero, timing.elapsed() - acknowledged)
                    lastWriteAcknowledged = nil
                }
                actions = sender.receive(bytes)
            case .deadline(let id):
                actions = id == deadline ? sender.deadlinePassed() : []
            case .linkLost(let reason):
                timeline.cancel(.updateDeadline(deadline))
                return .failure(
                    .linkLost(block: Self.block(of: sender), reason ?? LinkError(.notConnected, "the host closed the link")))
            case .cancel, nil:
                actions = sender.cancel()
            }
        }
    }

    /// The quiet to wait after a refusal before the block goes again: twice the longest the
    /// reader's bytes have taken to come after a write in this transfer (every write is
    /// acknowledged, so nothing of the refused block is still on its way; the wait is for
    /// more of the reader's answer, such as a second `NAK`), at least
    /// ``minimumQuietAfterRefusal``, at most `limit` (the configured quiet, 1 s by default,
    /// which is also the wait before any answer has been timed).
    static func quietAfterRefusal(atMost limit: Duration, slowestAnswer: Duration?) -> Duration {
        guard let slowestAnswer else { return limit }
        return min(limit, max(minimumQuietAfterRefusal, slowestAnswer * 2))
    }

    /// The shortest quiet after a refusal: a few of BlueZ's connection intervals (30–50 ms
    /// by default), so that a reader's answer split over two connection events is heard whole.
    static let minimumQuietAfterRefusal = Duration.milliseconds(100)

    /// The reader's answer times plus the link margin, as for commands: a block's last
    /// byte leaves the host before it reaches the reader.
    private func ymodemLimits(_ options: FirmwareUpdateOptions) -> YModemSender.Configuration {
        var limits = options.ymodem
        limits.startTimeout += configuration.linkMargin
        limits.answerTimeout += configuration.linkMargin
        limits.verificationTimeout += configuration.linkMargin
        return limits
    }

    /// The block the transfer was at: 0 for the header and the end, nil before it started.
    private static func block(of sender: YModemSender) -> Int? {
        switch sender.phase {
        case .header, .verifying: 0
        case .data(let block): block
        default: nil
        }
    }

    /// Why a block could not be written.
    private static func linkError(of error: CardReaderError) -> LinkError {
        error.link ?? LinkError(.notConnected, "\(error)")
    }

    /// The reader drops the link to restart (§7.2: within 2 s); the host closes it after
    /// the deadline if the reader has not. The drop may have come already, right after the
    /// reader's last ACK.
    private func awaitRestart(options: FirmwareUpdateOptions, inputs: AsyncStream<FirmwareUpdateInput>) async {
        guard machine.awaitsRestart else { return }
        // The transfer's iterator has ended; the inputs after its last go on here.
        var inputs = inputs.makeAsyncIterator()
        let id = makeID()
        schedule(.updateDeadline(id), after: options.restartDisconnectTimeout)
        defer { timeline.cancel(.updateDeadline(id)) }
        while let input = await inputs.next(isolation: #isolation) {
            switch input {
            case .linkLost:
                return
            case .deadline(id):
                await run(change { $0.restartOverdue() })
                return
            case .bytes, .deadline, .cancel:
                continue
            }
        }
    }

    /// How long the update waits before connecting again to a restarting reader that
    /// refused the last attempt at once.
    private static let pauseAfterRefusedReturn = Duration.milliseconds(250)

    /// Connects again through the connector and asks GET INFO, attempt after attempt, until
    /// `limit`: a reader that takes a connection before it answers (still starting) is
    /// tried again, not reported as failed.
    private func reconnectAfterRestart(within limit: Duration, confirming: () -> Void) async throws(CardReaderError)
        -> ReaderInfo
    {
        let deadline = timing.elapsed() + limit
        var attempt = 0
        var lastFailure = LinkError(.remoteDisconnected, "the reader did not come back after its firmware restart")
        while true {
            attempt += 1
            guard change({ $0.restartAttempt(attempt) }) else { throw Task.isCancelled ? .cancelled : .notConnected }
            let left = deadline - timing.elapsed()
            guard left > .zero else { break }
            switch await attemptLink(within: min(left, configuration.connectTimeout), for: .restart) {
            case .success:
                confirming()
                do throws(CardReaderError) {
                    let info = try await infoHoldingGate()
                    await run(change { $0.restartConfirmed() })
                    return info
                } catch {
                    guard !Task.isCancelled else {
                        // The reader is back; the update stops here, the link stays.
                        await run(change { $0.restartConfirmed() })
                        throw .cancelled
                    }
                    logger.debug("the restarted reader does not answer yet: \(error)")
                    await run(change { $0.restartNotConfirmed() })
                }
            case .failure(.cancelled), .failure(.notConnected):
                let error: CardReaderError = Task.isCancelled ? .cancelled : .notConnected
                await run(change { $0.restartAbandoned(error) })
                throw error
            case .failure(let error) where error.link?.code == .notPaired || error.link?.code == .bondLost:
                // The new firmware protects its link (§1.1): trying again cannot help.
                let failure = CardReaderError.firmwareUpdateFailed(.readerNeedsPairing(error.link ?? .notPaired(connector.readerDescription)))
                await run(change { $0.restartAbandoned(failure) })
                throw failure
            case .failure(let error):
                logger.debug("the restarted reader is not back yet: \(error)")
                if let link = error.link { lastFailure = link }
                // A refused connection comes back at once: do not spin, nor wait past the
                // deadline (an attempt that timed out has used it up).
                let pause = min(Self.pauseAfterRefusedReturn, deadline - timing.elapsed())
                if pause > .zero { _ = await sleep(for: pause) }
            }
        }
        let error = CardReaderError.firmwareUpdateFailed(.readerDidNotReturn(after: limit))
        // The reader may yet come back: a reader kept by a reconnect policy goes on trying.
        await run(change { $0.restartAbandoned(error, stillWanted: lastFailure) })
        throw error
    }
}

