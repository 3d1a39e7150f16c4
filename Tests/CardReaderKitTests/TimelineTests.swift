import Testing
@_spi(Timers) @testable import Timing

/// The timer bookkeeping behind every deadline of the reader and the emulator: a sleeping
/// task is started only when an action comes due before every sleeper's wake-up, so
/// deadlines that are cancelled or moved later cost no task. The expected times follow
/// from the rule, worked by hand.
struct TimelineTests {
    @Test func aLaterDeadlineNeedsNoNewSleeper() {
        var timeline = Timeline<String>()
        #expect(timeline.schedule("first answer", at: .seconds(6)) == .seconds(6))
        timeline.cancel("first answer")
        // The sleeper due at 6 s serves deadlines at or after it.
        #expect(timeline.schedule("second answer", at: .seconds(7)) == nil)
        #expect(timeline.schedule("idle", at: .seconds(300)) == nil)
        #expect(timeline.sleeperCount == 1)
    }

    @Test func anEarlierDeadlineStartsOneSleeper() {
        var timeline = Timeline<String>()
        #expect(timeline.schedule("answer", at: .seconds(6)) == .seconds(6))
        #expect(timeline.schedule("cut-off", at: .milliseconds(250)) == .milliseconds(250))
        #expect(timeline.schedule("cut-off again", at: .milliseconds(300)) == nil)
        #expect(timeline.sleeperCount == 2)
    }

    @Test func aWokenSleeperPerformsWhatIsDueThenSleepsUntilTheNext() {
        var timeline = Timeline<String>()
        _ = timeline.schedule("answer", at: .seconds(6))
        _ = timeline.schedule("idle", at: .seconds(300))
        timeline.cancel("answer")
        _ = timeline.schedule("late answer", at: .seconds(8))
        _ = timeline.schedule("swipe", at: .seconds(8))
        // Woken at 6 s: nothing due; it sleeps on until 8 s.
        #expect(timeline.popDue(at: .seconds(6)) == nil)
        #expect(timeline.sleeperWoke(from: .seconds(6)) == .seconds(8))
        // At 8 s both actions come out in the order they were scheduled.
        #expect(timeline.popDue(at: .seconds(8)) == "late answer")
        #expect(timeline.popDue(at: .seconds(8)) == "swipe")
        #expect(timeline.popDue(at: .seconds(8)) == nil)
        #expect(timeline.sleeperWoke(from: .seconds(8)) == .seconds(300))
        #expect(timeline.sleeperCount == 1)
    }

    @Test func aSleeperEndsWhenAnotherWakesInTimeOrNothingIsLeft() {
        var timeline = Timeline<String>()
        _ = timeline.schedule("answer", at: .seconds(6))
        _ = timeline.schedule("cut-off", at: .milliseconds(250))
        // The 250 ms sleeper wakes first; the 6 s sleeper already covers the answer.
        #expect(timeline.popDue(at: .milliseconds(250)) == "cut-off")
        #expect(timeline.sleeperWoke(from: .milliseconds(250)) == nil)
        #expect(timeline.popDue(at: .seconds(6)) == "answer")
        #expect(timeline.sleeperWoke(from: .seconds(6)) == nil)
        #expect(timeline.sleeperCount == 0)
    }
}
