/// The emulated reader's pending timed actions, earliest first; actions due at the same
/// time keep the order they were scheduled in.
struct EmulatorTimeline<Action: Sendable & Equatable>: Sendable {
    private struct Entry: Sendable {
        var deadline: Duration
        var sequence: Int
        var action: Action
    }

    private var entries: [Entry] = []
    private var nextSequence = 0

    /// The earliest deadline, if anything is scheduled.
    var nextDeadline: Duration? { entries.first?.deadline }

    mutating func schedule(_ action: Action, at deadline: Duration) {
        nextSequence += 1
        entries.append(Entry(deadline: deadline, sequence: nextSequence, action: action))
        entries.sort { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
    }

    /// Removes every scheduled `action`.
    mutating func cancel(_ action: Action) {
        entries.removeAll { $0.action == action }
    }

    /// Removes and returns the earliest action due at `now`, if any.
    mutating func popDue(at now: Duration) -> Action? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        entries.removeFirst()
        return first.action
    }

    /// When `action` is due, if it is scheduled.
    func deadline(of action: Action) -> Duration? {
        entries.first { $0.action == action }?.deadline
    }
}
