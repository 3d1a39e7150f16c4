package import CardReaderKitTesting
import Locking

/// Steps of a manual clock that a test takes through the timings of the code under test —
/// the emulated reader's restart after an update, a late acknowledgement, a connection's
/// retry back-off — never through a deadline under test: a deadline passes only when a
/// test advances to it. Every wait here is for an event (a task falling asleep on the clock),
/// bounded in real time only so that a broken test cannot hang.
extension ManualClock {
    /// Waits until a task sleeps on this clock until exactly `duration` from now (a timer
    /// the code under test has just set), then advances by `duration`.
    package func advance(pastSleepOf duration: Duration) async throws {
        try await waitForSleepers(dueNoSoonerThan: duration, dueWithin: duration, within: WaitBound.inProcess)
        advance(by: duration)
    }

    /// Advances the clock to `target` (time since the clock's creation), where a task
    /// sleeps or will: one wake-up at a time, waiting for the code under test to fall asleep
    /// in between, so that a timer set on the way — a deadline that a reused sleeper
    /// serves — is met at its time, and nothing later passes.
    package func advance(toSleeperAt target: Duration) async throws {
        while now.offset < target {
            let left = target - now.offset
            try await waitForSleepers(dueWithin: left, within: WaitBound.inProcess)
            advanceToNextSleeper(within: left)
        }
    }

    /// Runs `body` while stepping the clock through every sleep that ends within `horizon`
    /// of the clock's time — the emulated reader's late acknowledgements, its UART reads,
    /// the sender's quiet period — one sleeper at a time, as they come; returns what
    /// `body` returns. Deadlines further away pass only if the steps reach them.
    package func advancing<Value: Sendable>(
        throughSleepsWithin horizon: Duration, during body: @Sendable () async throws -> Value
    ) async rethrows -> Value {
        let stepper = ClockStepper(self, throughSleepsWithin: horizon)
        defer { stepper.stop() }
        return try await body()
    }
}

/// Steps a manual clock through every sleep that ends within a horizon of the clock's
/// time, one sleeper at a time, as they come, until stopped: for a test whose code under
/// test backs off now and then (a write bluetoothd answers "in progress", a connection
/// retried) while the test goes on.
package final class ClockStepper: Sendable {
    private let task: Task<Void, Never>
    /// Set by ``stop()``; each step is taken under it, so none is taken once stop returns.
    /// Lock order: this lock, then the clock's (taken inside its `advance`, which resumes
    /// the sleepers it wakes once it has let go of its own).
    private let stopped: Locked<Bool>

    /// Starts stepping `clock` through sleeps that end within `horizon` of its time; each
    /// step waits for `settled` first (what the code under test has in flight to be
    /// handled), when given, and goes no further than `nextDue` says the code under test's
    /// next timer is due (one it has set, whose task may not be asleep on the clock yet).
    package init(
        _ clock: ManualClock, throughSleepsWithin horizon: Duration,
        settled: (@Sendable () async throws -> Void)? = nil,
        nextDue: (@Sendable () async -> Duration?)? = nil
    ) {
        let stopped = Locked(false)
        self.stopped = stopped
        task = Task {
            while !Task.isCancelled {
                guard (try? await clock.waitForSleepers(dueWithin: horizon, within: WaitBound.inProcess)) != nil else { continue }
                // A sleep begun while the code under test settles is a deadline it set
                // meanwhile: settle again before moving past anything.
                let mark = clock.sleepsBegun
                if let settled, (try? await settled()) == nil { continue }
                let due = await nextDue?()
                stopped.withLock { stopped in
                    // Stopped while settling: the test has moved on, and settling returned
                    // early (a cancelled wait) rather than because all was handled.
                    guard !stopped else { return }
                    if let due, due <= horizon {
                        clock.advance(toNextSleeperWithin: due, orToHorizon: true, ifNoSleepBegunSince: mark)
                    } else {
                        clock.advance(toNextSleeperWithin: horizon, ifNoSleepBegunSince: mark)
                    }
                }
            }
        }
    }

    /// Stops stepping: once it returns, the clock moves no more.
    package func stop() {
        stopped.withLock { $0 = true }
        task.cancel()
    }

    deinit { task.cancel() }
}
