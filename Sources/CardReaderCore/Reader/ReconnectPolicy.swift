/// How ``CardReader`` reconnects after the link drops on its own (opt-in:
/// ``CardReader/Configuration/reconnect``).
///
/// A command in flight when the link drops fails with ``CardReaderError/linkLost(_:)`` and is
/// never retried: a swipe or an APDU is not idempotent. Then the reader tries to open a new
/// link: attempt *n* waits ``initialDelay`` × ``multiplier``^(n−1) (at most ``maximumDelay``),
/// spread by ± ``jitter`` so that many lanes do not retry in step, then connects within
/// ``CardReader/Configuration/connectTimeout``. It gives up after ``maximumAttempts`` or when
/// ``overallDeadline`` has passed since the drop, whichever comes first; ``always`` never
/// gives up. Whatever the policy, a reader that refuses this host's bond (`bond-lost`) or
/// holds none (`not-paired`) is not retried: it needs a person (pairing mode), so the
/// connection ends ``ConnectionState/lost(_:)`` with that reason and its fix.
public struct ReconnectPolicy: Sendable, Hashable {
    /// Attempts before giving up (at least 1); nil: no limit.
    public var maximumAttempts: Int?
    /// The wait before the first attempt.
    public var initialDelay: Duration
    /// The largest wait between attempts.
    public var maximumDelay: Duration
    /// How much each wait grows over the previous one.
    public var multiplier: Double
    /// The fraction (0…1) by which each wait is randomly lengthened or shortened.
    public var jitter: Double
    /// How long after the drop the reader stops trying; nil: never.
    public var overallDeadline: Duration?

    /// A policy of 5 attempts at most, waiting 0.5 s, 1 s, 2 s, … (8 s at most, ± 20 %),
    /// for up to 60 s after the drop. Values out of range are clamped: at least 1 attempt, a
    /// multiplier of at least 1, a jitter of 0…1.
    public init(
        maximumAttempts: Int? = 5, initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(8),
        multiplier: Double = 2, jitter: Double = 0.2, overallDeadline: Duration? = .seconds(60)
    ) {
        self.maximumAttempts = maximumAttempts.map { max(1, $0) }
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(1, multiplier)
        self.jitter = min(max(jitter, 0), 1)
        self.overallDeadline = overallDeadline
    }

    /// A lane's policy: tries until the reader is back, however long that takes (a reset, a
    /// lunch-time power-off, bluetoothd restarting, the adapter replugged), waiting 0.5 s,
    /// 1 s, 2 s, … up to 30 s between attempts, ± 20 %. 30 s keeps a reader that comes back
    /// waiting at most half a minute, while a lane whose reader is away for hours makes two
    /// attempts a minute.
    public static let always = ReconnectPolicy(
        maximumAttempts: nil, initialDelay: .milliseconds(500), maximumDelay: .seconds(30), overallDeadline: nil)

    /// The wait before attempt `attempt` (from 1), before jitter.
    public func nominalDelay(beforeAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) {
            delay = delay * multiplier
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }

    /// The wait before attempt `attempt`, with jitter drawn from `random` (in 0…1).
    func delay(beforeAttempt attempt: Int, random: Double) -> Duration {
        nominalDelay(beforeAttempt: attempt) * (1 + jitter * (2 * random - 1))
    }

    /// Whether attempt `attempt` (from 1) is within the policy's limit.
    func allows(attempt: Int) -> Bool {
        maximumAttempts.map { attempt <= $0 } ?? true
    }
}
