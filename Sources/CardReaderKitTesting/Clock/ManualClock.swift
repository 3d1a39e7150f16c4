import Locking

/// A clock that moves only when told: for deterministic tests of code that waits, such as
/// the emulated reader's "swipe after 5 seconds" or a command's deadline.
///
/// Tests never sleep: they wait until the code under test is itself asleep on this clock
/// (``waitForSleepers(atLeast:dueNoSoonerThan:dueWithin:within:)``, bounded in real time), then ``advance(by:)``.
public final class ManualClock: Clock, Sendable {
    /// A point on a manual clock's time line: how far the clock had been advanced.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// Time since the clock was created.
        public var offset: Duration

        /// The instant `duration` later (earlier, when negative).
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`, negative when `other` is earlier.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// The offset from the clock's creation, e.g. `t+5.0 seconds`.
        public var description: String { "t+\(offset)" }
    }

    /// Raised by ``ManualClock/waitForSleepers(atLeast:dueNoSoonerThan:dueWithin:within:)`` when the code under test never slept.
    public struct SleepersMissing: Error, CustomStringConvertible {
        /// How many sleepers the test waited for.
        public var expected: Int
        /// How many sleepers due in the window the test named were there when the real-time
        /// limit passed (all of them, when it named none).
        public var present: Int
        /// How many tasks slept on the clock then, due in the window or not.
        public var asleep: Int
        /// The window the sleepers had to be due in, e.g. `due t+2.0 seconds…t+2.0 seconds`; nil when the test named none.
        public var window: String?

        /// The counts, e.g. `expected 1 sleeper(s) due t+2.0 seconds…t+2.0 seconds on the manual clock, found 0 (1 asleep in all)`.
        public var description: String {
            let due = window.map { " \($0)" } ?? ""
            return "expected \(expected) sleeper(s)\(due) on the manual clock, found \(present) (\(asleep) asleep in all)"
        }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var id: UInt64
        var count: Int
        var earliest: Instant?
        var horizon: Instant?
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []
        var sleepsBegun = 0

        /// Sleepers due at or after `earliest` and at or before `horizon` (without bounds, all).
        func sleeperCount(dueFrom earliest: Instant?, by horizon: Instant?) -> Int {
            sleepers.count { sleeper in
                (earliest.map { sleeper.deadline >= $0 } ?? true) && (horizon.map { sleeper.deadline <= $0 } ?? true)
            }
        }
    }

    private let state = Locked(State())

    /// A clock at offset zero with no sleepers.
    public init() {}

    /// The current instant: offset zero plus every ``advance(by:)`` so far.
    public var now: Instant { state.withLock { $0.now } }
    /// Zero: the clock is exactly where ``advance(by:)`` puts it.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How many sleeps have begun on this clock (each that did not end at once): read
    /// before a test lets the code under test settle, it is the mark for
    /// ``advance(toNextSleeperWithin:orToHorizon:ifNoSleepBegunSince:)``.
    public var sleepsBegun: Int { state.withLock { $0.sleepsBegun } }

    /// Suspends until ``advance(by:)`` reaches `deadline` (at once when it has passed);
    /// throws `CancellationError` when the task is cancelled. `tolerance` is ignored.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, satisfied) = state.withLock { state -> (Bool, [Watcher]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    state.sleepsBegun += 1
                    let snapshot = state
                    var satisfied: [Watcher] = []
                    state.watchers.removeAll { watcher in
                        guard snapshot.sleeperCount(dueFrom: watcher.earliest, by: watcher.horizon) >= watcher.count
                        else { return false }
                        satisfied.append(watcher)
                        return true
                    }
                    return (false, satisfied)
                }
                // Resumed outside the lock, as Locked asks.
                for watcher in satisfied { watcher.continuation.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves time forward to the earliest instant a task sleeps until, if that is within
    /// `horizon` from now, waking every sleeper due then; returns whether it moved. A
    /// test steps through the timings of the code under test this way (each back-off,
    /// each late answer) without passing a deadline further away.
    @discardableResult
    public func advanceToNextSleeper(within horizon: Duration) -> Bool {
        let step = state.withLock { state -> Duration? in
            guard let earliest = state.sleepers.map(\.deadline).min() else { return nil }
            let step = state.now.duration(to: earliest)
            return step <= horizon ? step : nil
        }
        guard let step else { return false }
        advance(by: step)
        return true
    }

    /// Moves time forward as ``advanceToNextSleeper(within:)`` does — or, with
    /// `orToHorizon`, by `horizon` when no sleeper is due within it — but only if no sleep
    /// has begun since `mark` (``sleepsBegun``, read before the test let the code under test
    /// settle). A sleep begun since is a deadline the code under test set meanwhile — an
    /// answer it now waits for, a frame half arrived — which the test must let it see
    /// first; checking and moving are one step, so none slips in between. Returns whether
    /// time moved.
    @discardableResult
    public func advance(toNextSleeperWithin horizon: Duration, orToHorizon: Bool = false, ifNoSleepBegunSince mark: Int)
        -> Bool
    {
        let due = state.withLock { state -> [Sleeper]? in
            guard state.sleepsBegun == mark else { return nil }
            let earliest = state.sleepers.map(\.deadline).min().map { state.now.duration(to: $0) }
            let step: Duration
            if let earliest, earliest <= horizon {
                step = earliest
            } else if orToHorizon {
                step = horizon
            } else {
                return nil
            }
            state.now = state.now.advanced(by: step)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        guard let due else { return false }
        for sleeper in due { sleeper.continuation.resume() }
        return true
    }

    /// Waits until at least `count` tasks sleep on this clock — counting only those due
    /// within `horizon` from now, and no sooner than `earliest` from now, when given — or
    /// fails after `limit` of real time: the bound that keeps a broken test from hanging.
    /// The code under test gets there in milliseconds alone, but in a whole suite run on a
    /// 2-core machine with both cores busy it was measured taking up to 12 s; the default
    /// is five times that.
    ///
    /// The bounds name the timer a test means: after asking the emulated reader to swipe in
    /// 2 s, `waitForSleepers(dueWithin: .seconds(2))` returns once that swipe is scheduled,
    /// not merely when some other timer sleeps; `waitForSleepers(dueNoSoonerThan: d,
    /// dueWithin: d)` waits for the timer due exactly `d` from now.
    public func waitForSleepers(
        atLeast count: Int = 1, dueNoSoonerThan earliest: Duration? = nil, dueWithin horizon: Duration? = nil,
        within limit: Duration = .seconds(60)
    ) async throws {
        let (id, from, deadline) = state.withLock { state in
            state.nextID += 1
            return (state.nextID, earliest.map { state.now.advanced(by: $0) }, horizon.map { state.now.advanced(by: $0) })
        }
        let reached = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready: Bool = self.state.withLock { state in
                        if state.sleeperCount(dueFrom: from, by: deadline) >= count { return true }
                        state.watchers.append(
                            Watcher(id: id, count: count, earliest: from, horizon: deadline, continuation: continuation))
                        return false
                    }
                    if ready { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await ContinuousClock().sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            if !first {
                let watcher = self.state.withLock { state -> Watcher? in
                    guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.watchers.remove(at: index)
                }
                watcher?.continuation.resume()
            }
            group.cancelAll()
            return first
        }
        guard !reached else { return }
        let (present, asleep) = state.withLock { ($0.sleeperCount(dueFrom: from, by: deadline), $0.sleepers.count) }
        let window: String? = from == nil && deadline == nil
            ? nil : "due \(from?.description ?? "now")…\(deadline?.description ?? "any time")"
        throw SleepersMissing(expected: count, present: present, asleep: asleep, window: window)
    }
}
