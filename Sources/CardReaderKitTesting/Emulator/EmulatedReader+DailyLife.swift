import CardReaderCore
import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// The reader's life between transactions: its scheduled reset, repeated, and a battery
/// that drains or charges.
extension EmulatedReader {
    /// Schedules the next reset at `resetAt`, and its warning ahead of it.
    func scheduleReset(at resetAt: Duration) {
        schedule(.reset, at: resetAt)
        let warningAt = resetAt - configuration.resetWarning
        if warningAt > clock.elapsed() { schedule(.resetWarning, at: warningAt) }
    }

    /// `E0 04` with the whole seconds left until `resetAt`, rounded up.
    func warnOfReset(at resetAt: Duration) {
        let left = (resetAt - clock.elapsed()).components
        let seconds = left.seconds + (left.attoseconds > 0 ? 1 : 0)
        send(event: .resetScheduled(secondsUntilReset: UInt16(clamping: max(0, seconds))))
    }

    /// The scheduled reset: the link drops, the reader is silent for its restart time, and
    /// the next reset is scheduled one interval on. A firmware transfer under way ends as a
    /// lost link does (old firmware kept).
    func resetNow() {
        logger.debug("scheduled reset")
        let now = clock.elapsed()
        scheduleReset(at: now + (scenario.resetEvery ?? configuration.resetInterval))
        guard restart == .running else { return }
        restart = .resetting
        slot = card == nil || slot.isEmpty ? .empty : .present
        endConnection(dropping: LinkError(.readerReset, "the reader reset itself (scheduled reset)"))
        schedule(.resetRestartDone, at: now + configuration.resetRestartTime)
    }

    /// The reader runs again after its scheduled reset (no pairing mode: not a power-on).
    func resetRestartDone() {
        guard restart == .resetting else { return }
        restart = .running
        let waiters = restartWaiters.values
        restartWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
        logger.debug("back after the scheduled reset")
    }

    /// The time one percent of battery takes, when the scenario drains or charges it.
    var batteryStepInterval: Duration? {
        guard let perHour = scenario.batteryDrainPerHour ?? scenario.batteryChargePerHour else { return nil }
        return .milliseconds(3_600_000 / perHour)
    }

    /// One percent down (or up): the Battery service's level, and `E0 03` when the level
    /// crosses the warning threshold and every 5 % below it.
    func stepBattery() {
        let draining = scenario.batteryDrainPerHour != nil
        if draining, battery > 0 {
            battery -= 1
            if battery < configuration.batteryWarningPercent,
                battery == configuration.batteryWarningPercent - 1 || battery % 5 == 0
            {
                send(event: .batteryLow(percent: battery))
            }
        } else if !draining, battery < 100 {
            battery += 1
        }
        connection?.battery.yield(battery)
        if let step = batteryStepInterval, draining ? battery > 0 : battery < 100 {
            schedule(.batteryStep, at: clock.elapsed() + step)
        }
    }
}

extension EmulatedReader.Slot {
    var isEmpty: Bool {
        if case .empty = self { return true }
        return false
    }
}
