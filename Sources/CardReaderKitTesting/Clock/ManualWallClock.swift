import CardReaderCore

/// A wall clock that moves with a ``ManualClock``: a test's shop day starts at a chosen
/// time and its hours pass as the test advances the manual clock.
///
/// ```swift
/// let clock = ManualClock()
/// let opening = WallClockTime(secondsSince1970: 1_795_852_800)   // 2026-11-28 08:00 UTC
/// let reader = CardReader(connector: connector, clock: clock, wallClock: ManualWallClock(clock, startingAt: opening))
/// ```
public struct ManualWallClock: WallClock {
    private let clock: ManualClock
    private let start: WallClockTime
    private let startOffset: Duration

    /// Reads `start` now, and `start` plus however far `clock` is advanced later.
    public init(_ clock: ManualClock, startingAt start: WallClockTime) {
        self.clock = clock
        self.start = start
        startOffset = clock.now.offset
    }

    public func now() -> WallClockTime {
        start.advanced(by: clock.now.offset - startOffset)
    }
}
