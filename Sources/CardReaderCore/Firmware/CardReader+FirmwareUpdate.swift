import Logging
import ReaderProtocol

/// The firmware update's steps inside the reader session: pre-flight, ENTER FIRMWARE
/// UPDATE, the YModem transfer (the link's bytes go to the YModem sender, not the frame
/// decoder), the restart, the reconnection and the confirming GET INFO.
extension CardReader {
    /// What the YModem transfer reacts to, in order.
    enum YModemInput: Sendable {
        case bytes([UInt8])
        case deadline(UInt64)
        case linkLost(LinkError?)
        case cancel
    }

    func runFirmwareUpdate(
        image: FirmwareImage, options: FirmwareUpdateOptions, report: @Sendable (FirmwareUpdateProgress) -> Void
    ) async throws(CardReaderError) -> FirmwareUpdateReport {
        do throws(CardReaderError) {
            let result = try await updateFirmwareSteps(image: image, options: options, report: report)
            metrics.firmwareUpdate(outcome: "updated")
            return result
        } catch {
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
            report(progress)
        }
        enter(.checking)
        try await acquireGate()
        defer { gate.release() }
        let before = try await infoHoldingGate()
        do throws(FirmwareImageError) {
            try image.check(model: before.model ?? "(no model in GET INFO)")
        } catch {
            throw .firmwareUpdateFailed(.invalidImage(error))
        }
        if let battery = before.batteryPercent, battery < options.minimumBattery {
            throw .firmwareUpdateFailed(.batteryTooLow(percent: battery, required: options.minimumBattery))
        }
        logger.info(
            "firmware update", metadata: ["from": "\(before.firmwareVersion ?? "?")", "to": "\(image.version)"])

        enter(.entering)
        let (inputs, input) = AsyncStream.makeStream(of: YModemInput.self)
        pendingYModemInput = input
        let entered: ReaderResponse
        do throws(CardReaderError) {
            entered = try await performHoldingGate(
                .enterFirmwareUpdate(imageSize: UInt32(image.bytes.count)), answerTime: Self.shortAnswerTime)
        } catch {
            pendingYModemInput = nil
            throw error
        }
        pendingYModemInput = nil
        guard entered.status == .success, ymodemInput != nil else {
            throw .firmwareUpdateFailed(.refused(entered.status))
        }

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
        leaveYModem()
        let transferDuration = timing.elapsed() - transferStarted
        let drop = dropDuringUpdate
        dropDuringUpdate = nil
        let sender: YModemSender
        switch outcome {
        case .success(let finished):
            sender = finished
        case .failure(let error):
            logger.notice("firmware update failed: \(error)")
            if let drop { linkLost(drop) }
            throw .firmwareUpdateFailed(error)
        }
        if sender.resentBlocks > 0 {
            logger.info(
                "blocks sent again during the transfer",
                metadata: ["resent": "\(sender.resentBlocks)", "blockSize": "\(sender.blockSize)"])
        }

        enter(.restarting)
        try await awaitRestart(options: options)
        enter(.reconnecting)
        let after = try await reconnectAfterRestart(within: options.returnTimeout) { enter(.confirming) }
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

    private func infoHoldingGate() async throws(CardReaderError) -> ReaderInfo {
        let response = try await performHoldingGate(.getInfo, answerTime: Self.shortAnswerTime)
        guard response.status == .success else { throw .status(response.status, of: .getInfo) }
        guard case .info(let info) = response.body else { throw Self.unexpected(response.body, answering: .getInfo) }
        if let battery = info.batteryPercent { metrics.battery(battery) }
        return info
    }

    /// Runs the YModem sender over the link until it finishes (returning it, finished) or
    /// fails.
    private func transfer(
        _ image: FirmwareImage, options: FirmwareUpdateOptions, inputs: AsyncStream<YModemInput>,
        acknowledged: (Int) -> Void
    ) async -> Result<YModemSender, FirmwareUpdateError> {
        // The reader's answer times plus the link margin, as for commands: a block's last
        // byte leaves the host before it reaches the reader.
        var limits = options.ymodem
        limits.startTimeout += configuration.linkMargin
        limits.answerTimeout += configuration.linkMargin
        limits.verificationTimeout += configuration.linkMargin
        var sender = YModemSender(
            fileName: options.fileName ?? "\(image.model)-\(image.version).vfw", file: image.bytes,
            configuration: limits)
        var actions = sender.start()
        var deadline: UInt64 = 0
        var reported = -1
        var iterator = inputs.makeAsyncIterator()
        func block() -> Int? {
            switch sender.phase {
            case .header, .verifying: 0
            case .data(let block): block
            default: nil
            }
        }
        while true {
            for action in actions {
                switch action {
                case .send(let bytes):
                    do throws(CardReaderError) {
                        try await write(bytes: bytes)
                    } catch {
                        let reason: LinkError? =
                            switch error {
                            case .writeFailed(let reason), .linkLost(let reason): reason
                            default: nil
                            }
                        return .failure(.linkLost(block: block(), reason ?? LinkError(.notConnected, "\(error)")))
                    }
                case .awaitAnswer(let limit):
                    timeline.cancel(.ymodemDeadline(deadline))
                    deadline = makeID()
                    schedule(.ymodemDeadline(deadline), after: limit)
                case .finished:
                    timeline.cancel(.ymodemDeadline(deadline))
                    acknowledged(sender.acknowledgedBytes)
                    return .success(sender)
                case .failed(let error):
                    timeline.cancel(.ymodemDeadline(deadline))
                    return .failure(FirmwareUpdateError(error))
                }
            }
            if sender.acknowledgedBytes != reported {
                reported = sender.acknowledgedBytes
                acknowledged(reported)
            }
            switch await iterator.next() {
            case .bytes(let bytes):
                actions = sender.receive(bytes)
            case .deadline(let id):
                actions = id == deadline ? sender.deadlinePassed() : []
            case .linkLost(let reason):
                timeline.cancel(.ymodemDeadline(deadline))
                return .failure(
                    .linkLost(block: block(), reason ?? LinkError(.notConnected, "the host closed the link")))
            case .cancel, nil:
                actions = sender.cancel()
            }
        }
    }

    /// The link carries frames again.
    private func leaveYModem() {
        ymodemInput?.finish()
        ymodemInput = nil
        decoder.reset()
    }

    /// The reader drops the link to restart (§7.2: within 2 s); the host closes it after
    /// the deadline if the reader has not.
    private func awaitRestart(options: FirmwareUpdateOptions) async throws(CardReaderError) {
        restartExpected = true
        // The reader may have dropped the link right after its last ACK, before the update
        // got here: that was the restart.
        guard link != nil else { return restartDropped() }
        let id = makeID()
        schedule(.restartDropOverdue(id), after: options.restartDisconnectTimeout)
        await withCheckedContinuation { restartDropWaiter = (id, $0) }
        timeline.cancel(.restartDropOverdue(id))
        if let link {
            logger.notice("the reader did not drop the link after accepting the image; closing it")
            await tearDown(link: link, reason: nil)
        }
    }

    /// Connects again through the connector and asks GET INFO, attempt after attempt, until
    /// `limit`: a reader that takes a connection before it answers (still starting) is
    /// tried again, not reported as failed.
    private func reconnectAfterRestart(within limit: Duration, confirming: () -> Void) async throws(CardReaderError)
        -> ReaderInfo
    {
        let deadline = timing.elapsed() + limit
        var attempt = 0
        defer { restartExpected = false }
        while true {
            attempt += 1
            setState(.reconnecting(attempt: attempt))
            let left = deadline - timing.elapsed()
            guard left > .zero else { break }
            let outcome = await attemptLink(within: min(left, configuration.connectTimeout), purpose: .reconnect)
            switch outcome {
            case .success(let link):
                install(link)
                confirming()
                do throws(CardReaderError) {
                    let info = try await infoHoldingGate()
                    broadcast(.reconnected)
                    return info
                } catch {
                    guard !Task.isCancelled else { throw .cancelled }
                    logger.debug("the restarted reader does not answer yet: \(error)")
                    if let link = self.link { await tearDown(link: link, reason: nil) }
                }
            case .failure(.cancelled), .failure(.notConnected):
                setState(.disconnected)
                throw Task.isCancelled ? .cancelled : .notConnected
            case .failure(let error):
                logger.debug("the restarted reader is not back yet: \(error)")
                // A refused connection comes back at once: do not spin.
                try? await clock.sleep(for: .milliseconds(250))
            }
        }
        setState(.disconnected)
        throw .firmwareUpdateFailed(.readerDidNotReturn(after: limit))
    }

    /// The link dropped or closed while a restart was expected.
    func restartDropped() {
        setState(.reconnecting(attempt: 1))
        releaseRestartWaiter()
    }

    func releaseRestartWaiter(_ id: UInt64? = nil) {
        guard let waiter = restartDropWaiter, id == nil || waiter.id == id else { return }
        restartDropWaiter = nil
        waiter.continuation.resume()
    }
}
