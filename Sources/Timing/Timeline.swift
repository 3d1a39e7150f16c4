/// An actor's timed actions, earliest first (actions due at the same time keep the order
/// they were scheduled in), and the bookkeeping of the tasks that sleep until they are due.
///
/// Timers cost nothing once cancelled or done. A sleep on the continuous clock that is
/// cancelled keeps its memory until its original deadline passes, so a timer per deadline
/// that is cancelled when the answer comes would hold a few kilobytes per command for as
/// long as the deadline is. Here a sleeping task is never cancelled: cancelling or moving
/// an action only edits the list, and a sleeper is started only when an action is due
/// before every sleeper's wake-up. A sleeper that wakes performs what is due, then sleeps
/// until the next action unless another sleeper wakes no later; otherwise it ends. With
/// deadlines that mostly move later (each command's comes after the last one's), one
/// sleeper serves an actor's whole life.
///
/// The owner calls ``schedule(_:at:)`` and starts a sleeper when it returns a time; the
/// sleeper calls ``popDue(at:)`` until nil, then ``sleeperWoke(from:)`` for its next
/// wake-up. Times are ``ElapsedClock`` times.
///
/// For the reader, the emulated reader and D-Bus call deadlines only (`@_spi(Timers)`),
/// public so that it is inlinable: the emulated reader schedules on every write it
/// receives, and an unspecialised generic timeline cost its firmware transfers a third of
/// their throughput. (`package` declarations are not inlined across modules.)
@_spi(Timers)
public struct Timeline<Action: Sendable & Equatable>: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var deadline: Duration
        @usableFromInline var action: Action

        @inlinable
        init(deadline: Duration, action: Action) {
            self.deadline = deadline
            self.action = action
        }
    }

    /// By deadline; among equal deadlines, in the order scheduled.
    @usableFromInline var entries: [Entry] = []
    /// When each sleeping task wakes.
    @usableFromInline var wakeUps: [Duration] = []

    /// An empty time line.
    @inlinable
    public init() {}

    /// Schedules `action` at `deadline`. Returns when a new sleeper must wake, if no sleeper
    /// wakes at or before `deadline`.
    @inlinable
    public mutating func schedule(_ action: Action, at deadline: Duration) -> Duration? {
        let index = entries.firstIndex { $0.deadline > deadline } ?? entries.endIndex
        entries.insert(Entry(deadline: deadline, action: action), at: index)
        return claimWakeUp(at: deadline)
    }

    /// Removes every scheduled `action`.
    @inlinable
    public mutating func cancel(_ action: Action) {
        entries.removeAll { $0.action == action }
    }

    /// Removes and returns the earliest action due at `now`, if any.
    @inlinable
    public mutating func popDue(at now: Duration) -> Action? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        entries.removeFirst()
        return first.action
    }

    /// A sleeper due at `wakeUp` has performed what was due. Returns when it wakes next; nil
    /// when it ends (nothing scheduled, or another sleeper wakes in time).
    @inlinable
    public mutating func sleeperWoke(from wakeUp: Duration) -> Duration? {
        if let index = wakeUps.firstIndex(of: wakeUp) { wakeUps.remove(at: index) }
        guard let next = entries.first?.deadline else { return nil }
        return claimWakeUp(at: next)
    }

    /// Whether a sleeper due at or before `now` has yet to report (``sleeperWoke(from:)``):
    /// it has woken, or is about to, and will perform what is due and sleep again.
    @inlinable
    public func hasWakingSleeper(at now: Duration) -> Bool {
        wakeUps.contains { $0 <= now }
    }

    /// When the earliest action is due, if any is scheduled.
    @inlinable
    public var earliestDeadline: Duration? { entries.first?.deadline }

    /// Whether an action is due at `now` (its sleeper has woken, or is about to, and has not
    /// performed it yet).
    @inlinable
    public func hasDue(at now: Duration) -> Bool {
        entries.first.map { $0.deadline <= now } ?? false
    }

    /// When `action` is due, if it is scheduled.
    @inlinable
    public func deadline(of action: Action) -> Duration? {
        entries.first { $0.action == action }?.deadline
    }

    /// Sleeping tasks now: at most one per time an action came due before every wake-up.
    @inlinable
    public var sleeperCount: Int { wakeUps.count }

    @usableFromInline
    mutating func claimWakeUp(at deadline: Duration) -> Duration? {
        guard !wakeUps.contains(where: { $0 <= deadline }) else { return nil }
        wakeUps.append(deadline)
        return deadline
    }
}
