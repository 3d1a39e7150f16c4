/// What a firmware update reacts to while it runs, in order: the link's bytes while it
/// carries YModem, the update's deadlines, the link's drop, and its caller's cancellation.
enum FirmwareUpdateInput: Sendable {
    case bytes([UInt8])
    /// The deadline with this id passed.
    case deadline(UInt64)
    /// The link dropped (nil: the host closed it).
    case linkLost(LinkError?)
    case cancel
}
