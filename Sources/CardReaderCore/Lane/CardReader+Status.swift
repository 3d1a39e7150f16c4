import ReaderProtocol
@_spi(Timers) import Timing

/// The reader's status as one value, and its changes.
extension CardReader {
    /// The link, the battery, the firmware, an announced reset and the last disconnect's
    /// reason, now.
    public var status: Status {
        Status(
            link: linkStatus, battery: lane.battery, firmwareVersion: lane.firmwareVersion,
            resetExpected: lane.resetExpected,
            lastDisconnect: lane.lastDisconnect,
            pendingUpdate: lane.scheduled.map { Status.PendingUpdate(version: $0.image.version, isRequired: $0.isRequired) },
            lastUpdate: lane.lastScheduledOutcome?.outcome, lastUpdateEnded: lane.lastScheduledOutcome?.ended)
    }

    /// The status now, then every change, until the subscriber stops listening or the
    /// reader is released. A subscriber that falls behind gets the newest 32.
    public func statusUpdates() -> AsyncStream<Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: Status.self, bufferingPolicy: .bufferingNewest(32))
        let id = makeID()
        statusSubscribers[id] = continuation
        let now = status
        lane.published = now
        continuation.yield(now)
        continuation.onTermination = { [weak self] _ in Task { await self?.removeStatusSubscriber(id) } }
        return stream
    }

    /// Waits until the reader takes commands (``Status/Link/acceptsCommands``): a firmware
    /// update over, the reader back from its reset or a drop. Returns at once when it takes
    /// them now. After `timeout`, fails with what keeps it: ``CardReaderError/Code/updating``,
    /// ``CardReaderError/Code/resetting``, ``CardReaderError/Code/linkLost``, or
    /// ``CardReaderError/Code/notConnected``.
    public func waitUntilReady(timeout: Duration) async throws(CardReaderError) {
        if status.link.acceptsCommands { return }
        let updates = statusUpdates()
        let clock = clock
        let ready = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await status in updates where status.link.acceptsCommands { return true }
                return false
            }
            group.addTask {
                _ = try? await clock.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if ready { return }
        if Task.isCancelled { throw .cancelled }
        throw notReadyError(for: nil)
    }

    /// Why a command cannot be sent now, from the status.
    func notReadyError(for command: CommandCode?) -> CardReaderError {
        switch linkStatus {
        case .updating(let progress): return .updating(progress, command: command)
        case .resetting: return .resetting(command, timeLeft: nil)
        case .reconnecting(_, let reason), .lost(let reason):
            return .linkLost(reason.link ?? LinkError(.remoteDisconnected, reason.description))
        case .disconnected, .connecting, .ready, .busy: return .notConnected
        }
    }

    /// The link's part of the status, from the state machine's mode and the lane's record.
    var linkStatus: Status.Link {
        if let progress = lane.update ?? lane.requiredPending { return .updating(progress) }
        switch machine.mode {
        case .disconnected: return .disconnected
        case .connecting: return .connecting
        case .lost(let link): return .lost(lane.lastDisconnect ?? DisconnectReason(.readerGone, link: link))
        case .reconnecting(let attempt, let link):
            if lane.resetting { return .resetting }
            return .reconnecting(attempt: attempt, after: lane.lastDisconnect ?? DisconnectReason(.readerGone, link: link))
        case .commands:
            if case .awaitingAnswer(let exchange) = machine.exchange, !lane.keepAliveOut { return .busy(exchange.code) }
            return .ready
        case .enteringFirmwareUpdate, .firmwareTransfer, .transferInterrupted, .awaitingRestart, .restarting,
            .confirmingRestart:
            // Between the update's own steps (its progress is reported as it goes).
            return .ready
        }
    }

    /// Sends subscribers the status if it changed since they were last sent it.
    func publishStatus() {
        guard !statusSubscribers.isEmpty else { return }
        let now = status
        guard now != lane.published else { return }
        lane.published = now
        for continuation in statusSubscribers.values { continuation.yield(now) }
    }

    // MARK: - Battery and firmware

    /// GET INFO answered: its firmware version and battery level go into the status.
    func recordInfo(_ info: ReaderInfo) {
        if let version = info.firmwareVersion { lane.firmwareVersion = version }
        if let percent = info.batteryPercent { recordBattery(percent, from: .readerInfo) }
        publishStatus()
    }

    /// A battery level, read now from `source`; `low` when the reader said so itself.
    func recordBattery(_ percent: UInt8, from source: BatteryReading.Source, low: Bool = false) {
        lane.battery = BatteryReading(
            percent: percent, isLow: low || percent < configuration.lowBatteryPercent, readAt: wallClock.now(),
            source: source)
        metrics.battery(percent)
        publishStatus()
    }
}
