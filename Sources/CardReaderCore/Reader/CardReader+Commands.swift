import Logging
import ReaderProtocol

/// Sending commands and waiting for their answers: one at a time, each with its deadline,
/// CANCEL on cancellation.
extension CardReader {
    /// Sends `command` and returns its answer, whatever the status. `answerTime` is the
    /// reader's documented bound; the deadline adds the link margin.
    func perform(_ command: ReaderCommand, answerTime: Duration) async throws(CardReaderError) -> ReaderResponse {
        try await acquireGate()
        defer { gate.release() }
        return try await performHoldingGate(command, answerTime: answerTime)
    }

    /// ``perform(_:answerTime:)`` for a caller that already holds the command gate (a
    /// firmware update runs several commands under one hold).
    func performHoldingGate(_ command: ReaderCommand, answerTime: Duration) async throws(CardReaderError)
        -> ReaderResponse
    {
        guard !Task.isCancelled else { throw .cancelled }
        let deadline = answerTime + configuration.linkMargin
        try await waitWhileReconnecting(upTo: deadline)
        try await settleEarlierCancels()
        let id = makeID()
        let sentAt = timing.elapsed()
        exchange = Exchange(id: id, code: command.code, limit: deadline)
        schedule(.answerOverdue(id), after: deadline)
        logger.trace("→ \(command.code.commandName ?? "\(command.code)")", metadata: ["frame": "\(command.frame)"])
        do {
            try await write(command.frame)
        } catch {
            finish(id, .failure(error))
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if let result = exchange?.result, exchange?.id == id {
                    exchange = nil
                    continuation.resume(returning: result)
                } else if exchange?.id == id {
                    exchange?.continuation = continuation
                } else {
                    continuation.resume(returning: .failure(.notConnected))
                }
            }
        } onCancel: {
            Task { await self.cancelRequested(id) }
        }
        let outcome: String =
            switch result {
            case .success(let response) where response.status == .success: "success"
            case .success(let response): CardReaderError.status(response.status, of: command.code).identifier
            case .failure(let error): error.identifier
            }
        metrics.command(command.code, outcome: outcome, duration: timing.elapsed() - sentAt)
        return try result.get()
    }

    func acquireGate() async throws(CardReaderError) {
        if gate.tryAcquire() { return }
        let ticket = gate.takeTicket()
        let holding = await withTaskCancellationHandler {
            await withCheckedContinuation { gate.enqueue(ticket, $0) }
        } onCancel: {
            Task { await self.abandonGate(ticket) }
        }
        guard holding else { throw .cancelled }
    }

    func abandonGate(_ ticket: UInt64) {
        gate.abandon(ticket)
    }

    /// After a timeout or cancellation, waits until the reader has answered every CANCEL,
    /// so no stale answer is outstanding.
    func settleEarlierCancels() async throws(CardReaderError) {
        guard unansweredCancels > 0 else { return }
        let id = makeID()
        schedule(.cancelsOverdue(id), after: Self.shortAnswerTime + configuration.linkMargin)
        let settled = await withCheckedContinuation { barrier = CancelBarrier(id: id, continuation: $0) }
        timeline.cancel(.cancelsOverdue(id))
        guard settled else {
            if case .lost(let reason) = state { throw .linkLost(reason) }
            guard link != nil else { throw .notConnected }
            logger.warning("the reader answers neither a timed-out command nor CANCEL")
            throw .readerNotResponding
        }
    }

    func releaseBarrier(_ id: UInt64, settled: Bool) {
        guard let barrier, barrier.id == id else { return }
        self.barrier = nil
        barrier.continuation.resume(returning: settled)
    }

    func finish(_ id: UInt64, _ result: Result<ReaderResponse, CardReaderError>) {
        guard var current = exchange, current.id == id else { return }
        timeline.cancel(.answerOverdue(id))
        if let continuation = current.continuation {
            exchange = nil
            continuation.resume(returning: result)
        } else if current.result == nil {
            current.result = result
            exchange = current
        }
    }

    func expire(_ id: UInt64) async {
        // The answer may sit behind a frame that is not cut off yet; and CANCEL's answer
        // must not be swallowed by it.
        cutOffStaleFrame()
        guard let current = exchange, current.id == id, current.result == nil else { return }
        logger.notice("no answer in time", metadata: ["command": "\(current.code)", "deadline": "\(current.limit)"])
        finish(id, .failure(current.cancelRequested ? .cancelled : .readerTimedOut(current.code, after: current.limit)))
        // A cancelled command already has its CANCEL on the way.
        if !current.cancelRequested { await sendCancel() }
    }

    func cancelRequested(_ id: UInt64) async {
        guard var current = exchange, current.id == id, current.result == nil, !current.cancelRequested else { return }
        current.cancelRequested = true
        // The reader answers the waiting command (02) then CANCEL within 500 ms.
        current.limit = Self.shortAnswerTime + configuration.linkMargin
        timeline.cancel(.answerOverdue(id))
        schedule(.answerOverdue(id), after: current.limit)
        exchange = current
        logger.debug("cancelling", metadata: ["command": "\(current.code)"])
        await sendCancel()
    }

    func sendCancel() async {
        guard link != nil else { return }
        unansweredCancels += 1
        logger.trace("→ CANCEL", metadata: ["frame": "\(ReaderCommand.cancel.frame)"])
        do {
            try await write(ReaderCommand.cancel.frame)
        } catch where link == nil {
            // The host closed the link while the CANCEL waited for its turn to be written.
            logger.debug("CANCEL not sent: the link was closed first")
        } catch {
            logger.warning("could not send CANCEL: \(error)")
        }
    }

    /// Writes a frame in packets of the link's size. Frames are written whole, one after
    /// another, so a CANCEL never lands inside another frame.
    func write(_ frame: Frame) async throws(CardReaderError) {
        let bytes: [UInt8]
        do {
            bytes = try frame.encoded()
        } catch {
            throw .invalidRequest(error.description)
        }
        try await write(bytes: bytes)
    }

    /// Writes bytes in packets of the link's size, after every write queued before.
    func write(bytes: [UInt8]) async throws(CardReaderError) {
        guard let link else { throw .notConnected }
        let previous = writeTail
        let task = Task<Result<Void, CardReaderError>, Never>(executorPreference: link.executor) {
            await previous?.value
            let size = max(1, await link.maximumWriteLength)
            var start = 0
            while start < bytes.count {
                let packet = Array(bytes[start..<min(start + size, bytes.count)])
                do throws(LinkError) {
                    try await link.write(packet)
                } catch {
                    return .failure(.writeFailed(error))
                }
                start += size
            }
            return .success(())
        }
        writeTail = Task { _ = await task.value }
        try await task.value.get()
    }
}
