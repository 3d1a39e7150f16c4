import Synchronization

/// The continuous clock, counting the sleeps in progress: the reader's and the emulator's
/// timers. A count that grows with the work done is a timer leak.
public final class CountingClock: Clock, Sendable {
    public typealias Instant = ContinuousClock.Instant

    private let base = ContinuousClock()
    private let count = Atomic(0)

    public init() {}

    public var now: Instant { base.now }
    public var minimumResolution: Duration { base.minimumResolution }
    /// Sleeps in progress now.
    public var sleeping: Int { count.load(ordering: .relaxed) }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        count.add(1, ordering: .relaxed)
        defer { count.subtract(1, ordering: .relaxed) }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}
