/// The emulator's view of an injected clock: time as a duration since the reader was
/// created, and sleeping until such a time. It erases the clock's instant type so the
/// reader takes `any Clock<Duration>`: `ContinuousClock` in production, `ManualClock` in tests.
struct EmulatorClock: Sendable {
    /// Time since creation.
    let elapsed: @Sendable () -> Duration
    /// Sleeps until `elapsed()` reaches the argument; throws when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
        self = Self.wrapping(clock)
    }

    private init(elapsed: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.elapsed = elapsed
        self.sleep = sleep
    }

    private static func wrapping<C: Clock<Duration>>(_ clock: C) -> EmulatorClock {
        let start = clock.now
        return EmulatorClock(
            elapsed: { start.duration(to: clock.now) },
            sleep: { deadline in try await clock.sleep(until: start.advanced(by: deadline), tolerance: nil) })
    }
}
