import CardReaderCore
import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// The reader's firmware update (documentation §7): ENTER FIRMWARE UPDATE, the YModem-1K
/// transfer, the image's verification, the restart on the new firmware; and the faults a
/// scenario injects into it.
extension EmulatedReader {
    /// A transfer under way: the link carries YModem, not frames.
    struct FirmwareReception {
        var receiver: YModemReceiver
        /// NAKs still to send, by data block.
        var refusalsLeft: [Int: Int]
        /// The UART between radio and microcontroller (`firmware-uart`), if the scenario has one.
        var serialLine: UARTReceiveBuffer?
        /// Bytes of the block the host is writing that it has not written yet, counted as
        /// they leave the host (before a UART loses any): 0 between blocks.
        var hostBlockBytesLeft = 0

        /// Counts what the host wrote against the block it starts or goes on with: `SOH`
        /// and `STX` start a 128- or 1024-byte block (header and CRC included); any other
        /// byte between blocks stands alone.
        mutating func hostWrote(_ packet: [UInt8]) {
            var rest = packet[...]
            while let first = rest.first {
                if hostBlockBytesLeft == 0 {
                    hostBlockBytesLeft =
                        first == YModem.soh || first == YModem.stx ? YModem.blockLength(startingWith: first) : 1
                }
                let taken = min(hostBlockBytesLeft, rest.count)
                hostBlockBytesLeft -= taken
                rest = rest.dropFirst(taken)
            }
        }
    }

    /// Whether the host is part way through writing a YModem block. On a test's manual
    /// clock no time passes while it does: the reader's pause between a block's bytes
    /// (1 s, then the block is taken as cut short) is for a line that went quiet, not for a
    /// host between two writes of one block.
    public var isTakingABlockFromTheHost: Bool { (firmware?.hostBlockBytesLeft ?? 0) > 0 }

    /// The battery level below which ENTER FIRMWARE UPDATE answers `0B` (§7.1).
    static let firmwareBatteryMinimum: UInt8 = 30

    func enterFirmwareUpdate(size: UInt32) {
        let code = CommandCode.enterFirmwareUpdate
        guard size > 0, Int(size) <= FirmwareImage.maximumSize else { return answer(code, .invalidParameter) }
        guard battery >= Self.firmwareBatteryMinimum else { return answer(code, .batteryTooLow) }
        answer(code, .success)
        guard connection != nil else { return }
        logger.debug("firmware update: receiving", metadata: ["size": "\(size)"])
        firmware = FirmwareReception(
            receiver: YModemReceiver(expectedSize: Int(size)), refusalsLeft: scenario.firmwareRefusals,
            serialLine: scenario.firmwareUART.map { UARTReceiveBuffer($0, now: clock.elapsed()) })
        decoder.reset()
        timeline.cancel(.idleTimeout)
        run(firmware?.receiver.start() ?? [])
    }

    /// Bytes the host wrote while the link carries YModem: to the receiver, through the
    /// scenario's UART if it has one.
    func receiveFirmware(_ packet: [UInt8]) {
        guard firmware != nil else { return }
        firmware?.hostWrote(packet)
        guard firmware?.serialLine != nil else { return run(firmware?.receiver.receive(packet) ?? []) }
        drainSerialLine()
        firmware?.serialLine?.arrive(packet)
        scheduleSerialDrain()
    }

    /// The microcontroller reads what the UART has received by now.
    func drainSerialLine() {
        if let bytes = firmware?.serialLine?.drain(until: clock.elapsed()), !bytes.isEmpty {
            run(firmware?.receiver.receive(bytes) ?? [])
        }
        scheduleSerialDrain()
    }

    private func scheduleSerialDrain() {
        guard let line = firmware?.serialLine, !line.isEmpty else { return }
        timeline.cancel(.firmwareSerialDrain)
        schedule(.firmwareSerialDrain, at: clock.elapsed() + Self.serialDrainInterval)
    }

    /// How often the emulated microcontroller reads its UART.
    private static let serialDrainInterval = Duration.milliseconds(5)

    func firmwareTimerFired() {
        run(firmware?.receiver.deadlinePassed() ?? [])
    }

    /// A slow ACK comes due: it acknowledges its own block only (not one of a transfer
    /// started since).
    func acknowledgeLate(block: Int) {
        guard firmware?.receiver.blockAwaitingDecision == block else { return }
        run(firmware?.receiver.acknowledge() ?? [])
    }

    /// Performs the receiver's actions, deciding on each block as the scenario says.
    func run(_ actions: [YModemReceiver.Action]) {
        for action in actions {
            guard firmware != nil else { return }
            switch action {
            case .send(let bytes):
                sendRaw(bytes)
            case .armTimer(let delay):
                timeline.cancel(.firmwareTimer)
                schedule(.firmwareTimer, at: clock.elapsed() + delay)
            case .blockReceived(let index):
                decide(block: index)
            case .fileReceived(_, let data):
                verify(data)
            case .finished:
                break
            case .failed(let error):
                logger.debug("firmware update failed; old firmware kept", metadata: ["reason": "\(error)"])
                leaveFirmwareMode()
            }
        }
    }

    private func decide(block index: Int) {
        if scenario.firmwareDropAtBlock == index {
            logger.debug("scenario: link dropped during the firmware transfer", metadata: ["block": "\(index)"])
            leaveFirmwareMode()
            return endConnection(
                dropping: LinkError(.emulatorDropped, "the emulated reader dropped the link at block \(index)"))
        }
        if scenario.firmwareCancelAtBlock == index {
            return run(firmware?.receiver.cancel() ?? [])
        }
        if let left = firmware?.refusalsLeft[index], left > 0 {
            firmware?.refusalsLeft[index] = left - 1
            return run(firmware?.receiver.refuse() ?? [])
        }
        if let delay = scenario.firmwareAckDelay {
            timeline.cancel(.firmwareTimer)
            return schedule(.firmwareAcknowledge(block: index), at: clock.elapsed() + delay)
        }
        run(firmware?.receiver.acknowledge() ?? [])
    }

    /// §7.3: the image must parse, match the model, and check its CRC-32.
    private func verify(_ data: [UInt8]) {
        let model = configuration.info.model ?? ""
        let image = Result { () throws(FirmwareImageError) in
            let image = try FirmwareImage(bytes: data)
            try image.check(model: model)
            return image
        }
        switch image {
        case .success(let image) where !scenario.firmwareCorrupt:
            run(firmware?.receiver.accept() ?? [])
            leaveFirmwareMode()
            let version = scenario.firmwareKeepsVersion ? firmwareVersion : image.version
            logger.debug("firmware verified; restarting", metadata: ["version": "\(version ?? "?")"])
            restart = .pending(version: version)
            schedule(.firmwareDisconnect, at: clock.elapsed() + configuration.firmwareDisconnectDelay)
        case .success:
            logger.debug("scenario: the image is corrupt in flash; rejected")
            run(firmware?.receiver.reject() ?? [])
        case .failure(let error):
            logger.debug("firmware image rejected", metadata: ["reason": "\(error)"])
            run(firmware?.receiver.reject() ?? [])
        }
    }

    func leaveFirmwareMode() {
        if let lost = firmware?.serialLine?.dropped, lost > 0 {
            logger.debug("UART overflow during the firmware update", metadata: ["bytesLost": "\(lost)"])
        }
        firmware = nil
        timeline.cancel(.firmwareTimer)
        timeline.cancel(.firmwareSerialDrain)
        decoder.reset()
        refreshIdleTimer()
    }

    /// After a verified image: the reader drops the link and restarts; it comes back (and
    /// accepts connections) after the configured restart time, unless the scenario keeps
    /// it down.
    func restartOnNewFirmware() {
        guard case .pending(let version) = restart else { return }
        restart = .restarting
        firmwareVersion = version
        endConnection(dropping: LinkError(.firmwareRestart, "the reader restarts on its new firmware"))
        guard !scenario.firmwareNoRestart else {
            logger.debug("scenario: the reader does not come back after its update")
            return
        }
        schedule(.firmwareRestartDone, at: clock.elapsed() + configuration.firmwareRestartTime)
    }

    func restartDone() {
        restart = .running
        // A restart is a power-on: pairing mode again (§1.1), unless the scenario keeps it off.
        if scenario.pairingModeAtStart { pairingModeEnds = clock.elapsed() + configuration.pairingModeDuration }
        let waiters = restartWaiters.values
        restartWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
        logger.debug("restarted", metadata: ["version": "\(firmwareVersion ?? "?")"])
    }

    /// Returns once the reader runs (at once unless it is restarting after an update);
    /// throws when the waiting task is cancelled.
    public func waitUntilRunning() async throws(CancellationError) {
        guard restart != .running else { return }
        let id = makeWaiterID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if restart == .running || Task.isCancelled {
                    continuation.resume()
                } else {
                    restartWaiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.abandonRestartWait(id) }
        }
        if restart != .running { throw CancellationError() }
    }

    private func abandonRestartWait(_ id: Int) {
        restartWaiters.removeValue(forKey: id)?.resume()
    }

    private func makeWaiterID() -> Int {
        waiterCount += 1
        return waiterCount
    }

    /// YModem bytes go out as they are, in pieces of the notification size, with none of
    /// the scenario's notification faults.
    func sendRaw(_ bytes: [UInt8]) {
        guard let connection else { return }
        var start = 0
        while start < bytes.count {
            let end = min(start + connection.maximumNotificationLength, bytes.count)
            connection.continuation.yield(.notification(Array(bytes[start..<end])))
            sentOnLatestConnection.items += 1
            start = end
        }
    }
}
