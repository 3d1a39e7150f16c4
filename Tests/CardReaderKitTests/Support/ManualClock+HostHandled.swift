import CardReaderKitTesting
import ManualClockSteps

extension ManualClock {
    /// Runs `body` while stepping the clock through every sleep that ends within `horizon`,
    /// as ``advancing(throughSleepsWithin:during:)`` does, but each step only once the host
    /// has handled everything the emulated reader has sent (`control` counts what
    /// the host takes): a frame's later notifications are never cut off by a timer that,
    /// in real time, they would beat by far.
    func advancing<Value: Sendable>(
        throughSleepsWithin horizon: Duration, onceHostHasHandled emulator: EmulatedReader, control: ConnectorControl,
        during body: @Sendable () async throws -> Value
    ) async rethrows -> Value {
        let stepper = ClockStepper(self, throughSleepsWithin: horizon) {
            try await control.waitUntilHostHasHandled(await emulator.sentOnLatestConnection)
        }
        defer { stepper.stop() }
        return try await body()
    }
}
