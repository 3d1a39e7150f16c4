import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// Firmware updates a lane schedules: required ones when the reader connects, optional ones
/// in their maintenance window.
extension CardReader {
    /// How long a lane must have carried no card operation before a required update that
    /// failed is tried again while connected: so a retry never lands inside a transaction.
    static let requiredRetryQuiet = Duration.seconds(60)

    /// How often the reader looks whether a scheduled update may run (its window open, the
    /// lane idle long enough, a failure that could pass now passed).
    static let maintenanceCheckInterval = Duration.seconds(60)

    /// Schedules `update`, replacing one scheduled before: a required one starts when the
    /// reader connects, before any card operation (or at once, when it is connected and has
    /// carried no card operation for a minute: never inside a transaction); an optional one
    /// starts inside its window once the lane has been idle for the window's time. The status shows it pending, then its progress, then
    /// ``Status/lastUpdate``. A failure that can pass (the battery, the link, a reset)
    /// leaves it scheduled, tried again a minute later or when the reader reconnects; an
    /// image the reader cannot take, or a version check that refuses it, removes it.
    public func schedule(_ update: ScheduledFirmwareUpdate) {
        lane.scheduled = update
        logger.info(
            "firmware update scheduled", metadata: ["version": "\(update.image.version)", "required": "\(update.isRequired)"])
        publishStatus()
        considerScheduledUpdate()
        timeline.cancel(.maintenanceCheck)
        schedule(.maintenanceCheck, after: Self.maintenanceCheckInterval)
    }

    /// Removes the scheduled update, unless it has started (cancel the task that waits for
    /// it, or disconnect, to stop one under way).
    public func cancelScheduledUpdate() {
        guard !lane.scheduledRunning else { return }
        lane.scheduled = nil
        lane.requiredPending = nil
        timeline.cancel(.maintenanceCheck)
        publishStatus()
    }

    /// The maintenance check came due: looks, then comes again while an update is scheduled.
    func maintenanceCheck() {
        considerScheduledUpdate()
        if lane.scheduled != nil { schedule(.maintenanceCheck, after: Self.maintenanceCheckInterval) }
    }

    /// Starts the scheduled update if now is its time: the link carries frames, no update
    /// runs, and for an optional one the window is open, the lane idle long enough and no
    /// command running.
    func considerScheduledUpdate() {
        guard let update = lane.scheduled, !lane.scheduledRunning, lane.update == nil, case .commands = machine.mode
        else { return }
        // Never between two commands of a transaction: the gate free, no answer awaited, and
        // (a retry, or an optional update) the lane quiet for a while.
        let idle = if case .idle = machine.exchange { true } else { false }
        guard idle, gate.isFree else { return }
        switch update.urgency {
        case .required:
            // At the link's opening nothing has run yet; a retry waits for a quiet lane.
            let justConnected = timing.elapsed() - lane.lastActivity < Self.requiredRetryQuiet && lane.lastCommand <= lane.linkOpenedAt
            guard justConnected || timing.elapsed() - lane.lastCommand >= Self.requiredRetryQuiet else { return }
            lane.requiredPending = FirmwareUpdateProgress(
                phase: .checking, bytesSent: 0, totalBytes: update.image.bytes.count, elapsed: .zero, bytesPerSecond: nil)
        case .optional(let window):
            guard window.contains(wallClock.now()), timing.elapsed() - lane.lastCommand >= window.idleFor else { return }
        }
        lane.scheduledRunning = true
        publishStatus()
        logger.info("scheduled firmware update starting", metadata: ["version": "\(update.image.version)"])
        startWork { await $0.runScheduled(update) }
    }

    private func runScheduled(_ update: ScheduledFirmwareUpdate) async {
        let outcome: ScheduledUpdateOutcome
        do throws(CardReaderError) {
            outcome = .installed(try await runFirmwareUpdate(image: update.image, options: update.options) { _ in })
        } catch {
            outcome = .failed(error)
        }
        lane.requiredPending = nil
        lane.scheduledRunning = false
        lane.lastScheduledOutcome = (outcome, wallClock.now())
        if lane.scheduled == update {
            switch outcome {
            case .installed:
                lane.scheduled = nil
            case .failed(let error) where !Self.mayPass(error):
                logger.warning("scheduled firmware update dropped: \(error)")
                lane.scheduled = nil
            case .failed(let error):
                logger.notice("scheduled firmware update failed; trying again later: \(error)")
            }
        }
        if lane.scheduled == nil { timeline.cancel(.maintenanceCheck) }
        publishStatus()
    }

    /// Whether trying again later can succeed: not for an image the reader cannot take or a
    /// version check that refuses it, a reader that needs pairing after its restart, a link
    /// that is not encrypted, or a battery whose level nothing reports.
    static func mayPass(_ error: CardReaderError) -> Bool {
        if error.code == .linkNotEncrypted { return false }
        guard let update = error.firmwareUpdate else { return true }
        let final: Set<FirmwareUpdateError.Code> = [
            .invalidImage, .olderImage, .versionsNotComparable, .securityDowngrade, .verificationFailed, .wrongVersion,
            .readerNeedsPairing, .batteryUnknown,
        ]
        return !final.contains(update.code)
    }
}
