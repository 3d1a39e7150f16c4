/// What a reader's status reports beyond its link's mode, and what the SDK infers a drop's
/// reason from: the last command's time, an announced reset, the battery, the firmware.
struct LaneRecord {
    /// When the link last carried a command or its answer, or opened (elapsed time).
    var lastActivity: Duration = .zero
    /// When the reader said it will reset itself (elapsed time), while that is ahead.
    var resetAt: Duration?
    /// The same moment by the wall clock, as the status shows it.
    var resetExpected: WallClockTime?
    /// When the link in use opened (elapsed time).
    var linkOpenedAt: Duration = .zero
    /// The link dropped for the announced reset and the reader is awaited.
    var resetting = false
    var battery: BatteryReading?
    /// The link whose Battery service gave ``battery``, when it did.
    var batteryServiceLink: UInt64?
    var firmwareVersion: String?
    var lastDisconnect: DisconnectReason?
    /// The link dropped during a firmware transfer, with what it said: the transfer's end
    /// says whether that was the reader's restart on the image it had accepted.
    var dropDuringTransfer: LinkError?
    /// The firmware update running, as it last reported.
    var update: FirmwareUpdateProgress?
    /// When the link last carried a command that is not a keep-alive (elapsed time): what
    /// a maintenance window's idle time counts from.
    var lastCommand: Duration = .zero
    /// The update ``CardReader/schedule(_:)`` took, until it is installed or cannot be.
    var scheduled: ScheduledFirmwareUpdate?
    /// The scheduled update's task is under way.
    var scheduledRunning = false
    /// A required update is about to take the link: commands fail with `updating` until it
    /// holds the gate (then ``update`` says where it is).
    var requiredPending: FirmwareUpdateProgress?
    /// How the last scheduled update ended, and when.
    var lastScheduledOutcome: (outcome: ScheduledUpdateOutcome, ended: WallClockTime)?
    /// The command out is a keep-alive, which the status does not show as busy.
    var keepAliveOut = false
    /// What status subscribers were last sent.
    var published: CardReader.Status?
}
