import ReaderProtocol

/// A firmware image a lane's reader is to run, and when it may be installed: a required
/// update when the reader connects, before its first card operation; an optional one in a
/// maintenance window, once the lane has been idle for a while. ``CardReader/schedule(_:)``
/// takes it; the status shows it pending, its progress, and how it ended.
public struct ScheduledFirmwareUpdate: Sendable, Hashable {
    /// When the update may run.
    public enum Urgency: Sendable, Hashable {
        /// As soon as the reader connects, before its first card operation (or, connected,
        /// once it has carried no card operation for a minute); card operations asked for
        /// meanwhile fail with
        /// ``CardReaderError/Code/updating`` (a caller may wait with
        /// ``CardReader/waitUntilReady(timeout:)``).
        case required
        /// Inside the window, when no command has run for its idle time.
        case optional(MaintenanceWindow)
    }

    /// The image.
    public var image: FirmwareImage
    /// When it may run.
    public var urgency: Urgency
    /// How it runs (battery minimum, downgrades, the reader without a battery).
    public var options: FirmwareUpdateOptions

    /// `image`, to be installed as `urgency` says, with `options`.
    public init(image: FirmwareImage, urgency: Urgency, options: FirmwareUpdateOptions = FirmwareUpdateOptions()) {
        self.image = image
        self.urgency = urgency
        self.options = options
    }

    /// Whether it is required.
    public var isRequired: Bool { urgency == .required }
}

/// When optional updates may run: a span of local time (it may cross midnight) and how long
/// the lane must have carried no command first.
public struct MaintenanceWindow: Sendable, Hashable, CustomStringConvertible {
    /// The window opens at this local time of day (since midnight).
    public var opens: Duration
    /// And closes at this one; before ``opens`` means the next day.
    public var closes: Duration
    /// How long the lane must have carried no command (a keep-alive does not count).
    public var idleFor: Duration

    /// A window from `opens` to `closes` (local times of day), once the lane has been idle
    /// for `idleFor` (10 minutes by default).
    public init(opens: Duration, closes: Duration, idleFor: Duration = .seconds(600)) {
        self.opens = opens
        self.closes = closes
        self.idleFor = idleFor
    }

    /// 02:00 to 05:00, after 10 idle minutes: when a shop is closed.
    public static let overnight = MaintenanceWindow(opens: .seconds(2 * 3600), closes: .seconds(5 * 3600))

    /// Whether `time`'s local time of day is inside the window.
    public func contains(_ time: WallClockTime) -> Bool {
        let now = time.localTimeOfDay
        return opens <= closes ? (opens <= now && now < closes) : (now >= opens || now < closes)
    }

    /// E.g. `02:00–05:00 after 10 idle minutes`.
    public var description: String {
        func clock(_ time: Duration) -> String {
            let minutes = Int(time.components.seconds) / 60
            return "\(minutes / 60 < 10 ? "0" : "")\(minutes / 60):\(minutes % 60 < 10 ? "0" : "")\(minutes % 60)"
        }
        return "\(clock(opens))–\(clock(closes)) after \(Int(idleFor.components.seconds) / 60) idle minutes"
    }
}

/// How a scheduled update ended.
public enum ScheduledUpdateOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The reader runs the image now (``FirmwareUpdateReport/alreadyInstalled`` when it did before).
    case installed(FirmwareUpdateReport)
    /// It failed: the error says why, and whether the old firmware is kept. A failure that
    /// can pass (the battery, the link, a reset) leaves the update scheduled, to be tried
    /// again; one that cannot (the image, the versions) removes it.
    case failed(CardReaderError)

    /// E.g. `installed 3.2.0` or `failed: the reader's battery is at 25 %; …`.
    public var description: String {
        switch self {
        case .installed(let report): report.alreadyInstalled ? "already on \(report.version)" : "installed \(report.version)"
        case .failed(let error): "failed: \(error)"
        }
    }
}
