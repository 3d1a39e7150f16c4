/// A firmware update that succeeded: the reader runs the image's version, sent now or
/// already there (``alreadyInstalled``).
public struct FirmwareUpdateReport: Sendable, Hashable {
    /// The version GET INFO reported before the update.
    public var previousVersion: String?
    /// The version it reports now: the image's.
    public var version: String
    /// The image's size.
    public var bytes: Int
    /// From the first GET INFO to the confirming one.
    public var duration: Duration
    /// The YModem transfer alone: the first block to the reader's verdict.
    public var transferDuration: Duration
    /// Blocks sent again after the reader refused one (`NAK`) or did not answer in time.
    public var resentBlocks: Int
    /// Whether the transfer finished in 128-byte blocks, after 1024-byte ones failed (a
    /// reader whose receive buffer overflows on a whole block).
    public var fellBackToSmallBlocks: Bool
    /// The reader ran the image's version already: nothing was sent (``bytes`` and the
    /// durations are zero).
    public var alreadyInstalled: Bool = false
}
