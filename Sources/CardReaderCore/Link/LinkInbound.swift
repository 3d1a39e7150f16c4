/// What arrives from a link, in order: each notification as it arrived, then, if the link
/// went down on its own, one ``dropped(_:)``.
public enum LinkInbound: Sendable, Hashable {
    /// One notification (one ATT Handle Value Notification's value).
    case notification([UInt8])
    /// The link went down on its own.
    case dropped(LinkError)
}
