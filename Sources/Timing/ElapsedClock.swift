/// An injected clock seen as time since creation, and sleeping until such a time. It
/// erases the clock's instant type so that everything that waits — readers real and
/// emulated, D-Bus calls, BlueZ connections — takes `any Clock<Duration>`:
/// `ContinuousClock` in production, `ManualClock` in tests.
package struct ElapsedClock: Sendable {
    /// Time since creation.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps until `elapsed()` reaches the argument; throws when cancelled.
    package let sleep: @Sendable (Duration) async throws -> Void

    package init(_ clock: any Clock<Duration>) {
        self = Self.wrapping(clock)
    }

    private init(elapsed: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.elapsed = elapsed
        self.sleep = sleep
    }

    private static func wrapping<C: Clock<Duration>>(_ clock: C) -> ElapsedClock {
        let start = clock.now
        return ElapsedClock(
            elapsed: { start.duration(to: clock.now) },
            sleep: { deadline in try await clock.sleep(until: start.advanced(by: deadline), tolerance: nil) })
    }
}

extension ElapsedClock {
    /// Starts a timer task for a ``Timeline``: it sleeps until `wakeUp`, then until whatever
    /// `woke` returns, and ends when that is nil. Nothing holds the task, so nothing
    /// cancels it: `woke` is where an owner that has gone returns nil. With `executor`, the
    /// task wakes there (a D-Bus connection's dispatch thread) rather than on the shared
    /// cooperative pool, however busy that is.
    package func startTimer(
        until wakeUp: Duration, on executor: (any TaskExecutor)? = nil,
        woke: @escaping @Sendable (Duration) async -> Duration?
    ) {
        Task(executorPreference: executor) { [sleep] in
            var next: Duration? = wakeUp
            while let wakeUp = next {
                try? await sleep(wakeUp)
                next = await woke(wakeUp)
            }
        }
    }
}
