import Testing
import CardReaderKit
import CardReaderKitTesting

@Suite struct ManualClockTests {
    @Test func sleepersWakeOnlyWhenTimeReachesTheirDeadline() async throws {
        let clock = ManualClock()
        let woke = Task { try await clock.sleep(for: .seconds(5)) }
        try await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await woke.value
        #expect(clock.now.offset == .seconds(5))
    }

    @Test func cancellingASleeperEndsItWithCancellationError() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        try await clock.waitForSleepers(atLeast: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func waitingForSleepersThatNeverComeFailsWithinItsBound() async {
        await #expect(throws: ManualClock.SleepersMissing.self) {
            try await ManualClock().waitForSleepers(atLeast: 1, within: .milliseconds(50))
        }
    }

    @Test func aSleeperOutsideTheWindowIsReportedAsMissing() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        try await clock.waitForSleepers(atLeast: 1)
        let missing = await #expect(throws: ManualClock.SleepersMissing.self) {
            try await clock.waitForSleepers(atLeast: 1, dueWithin: .seconds(2), within: .milliseconds(50))
        }
        // One task sleeps, due at t+5 s: outside the window t+0…t+2 s the test asked for.
        #expect(missing?.present == 0)
        #expect(missing?.asleep == 1)
        #expect(missing?.description.contains("found 0 (1 asleep in all)") == true)
        sleeper.cancel()
    }
}
