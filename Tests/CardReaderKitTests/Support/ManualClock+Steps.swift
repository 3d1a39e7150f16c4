import CardReaderKitTesting

/// Steps of a manual clock that a test takes through the emulated reader's own timings —
/// its restart after an update, a late acknowledgement, a late answer — and the host's
/// back-offs, never through a deadline under test: a deadline passes only when a test
/// advances to it. Every wait here is for an event (a task falling asleep on the clock),
/// bounded in real time only so that a broken test cannot hang.
extension ManualClock {
    /// Waits until a task sleeps on this clock until exactly `duration` from now (a timer
    /// the code under test has just set), then advances by `duration`.
    func advance(pastSleepOf duration: Duration) async throws {
        try await waitForSleepers(dueNoSoonerThan: duration, dueWithin: duration, within: WaitBound.inProcess)
        advance(by: duration)
    }

    /// Advances the clock to `target` (time since the clock's creation), where a task
    /// sleeps or will: one wake-up at a time, waiting for the code under test to fall asleep
    /// in between, so that a timer set on the way — a deadline that a reused sleeper
    /// serves — is met at its time, and nothing later passes.
    func advance(toSleeperAt target: Duration) async throws {
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
    func advancing<Value: Sendable>(
        throughSleepsWithin horizon: Duration, during body: @Sendable () async throws -> Value
    ) async rethrows -> Value {
        let stepper = Task {
            while !Task.isCancelled {
                guard (try? await waitForSleepers(dueWithin: horizon, within: WaitBound.inProcess)) != nil else { continue }
                advanceToNextSleeper(within: horizon)
            }
        }
        defer { stepper.cancel() }
        return try await body()
    }
}

extension ManualClock {
    /// Runs `body` while stepping the clock through every sleep that ends within `horizon`,
    /// as ``advancing(throughSleepsWithin:during:)`` does, but each step only once the host
    /// has handled every notification the emulated reader has sent (`control` counts what
    /// the host takes): a frame's later notifications are never cut off by a timer that,
    /// in real time, they would beat by far.
    func advancing<Value: Sendable>(
        throughSleepsWithin horizon: Duration, onceHostHasHandled emulator: EmulatedReader, control: ConnectorControl,
        during body: @Sendable () async throws -> Value
    ) async rethrows -> Value {
        let stepper = Task {
            while !Task.isCancelled {
                guard (try? await waitForSleepers(dueWithin: horizon, within: WaitBound.inProcess)) != nil,
                    (try? await control.waitUntilHostHasHandled(notifications: await emulator.notificationsSent)) != nil
                else { continue }
                advanceToNextSleeper(within: horizon)
            }
        }
        defer { stepper.cancel() }
        return try await body()
    }
}
