#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The time of day, as the shop's lanes read it: when a battery level was read, and whether
/// an optional firmware update is inside its maintenance window. Injected beside the
/// reader's `Clock` (which measures waits), so that a test runs a whole day on one manual
/// clock; ``SystemWallClock`` reads the host's.
public protocol WallClock: Sendable {
    /// The time now.
    func now() -> WallClockTime
}

/// A moment, with the local time it was then.
public struct WallClockTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01 00:00 UTC.
    public var secondsSince1970: Double
    /// The local time zone's offset from UTC then, in seconds (east positive).
    public var utcOffsetSeconds: Int

    /// The moment `secondsSince1970`, in a zone `utcOffsetSeconds` from UTC.
    public init(secondsSince1970: Double, utcOffsetSeconds: Int = 0) {
        self.secondsSince1970 = secondsSince1970
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The moment `duration` later, in the same zone.
    public func advanced(by duration: Duration) -> WallClockTime {
        WallClockTime(secondsSince1970: secondsSince1970 + duration.seconds, utcOffsetSeconds: utcOffsetSeconds)
    }

    /// Time since local midnight.
    public var localTimeOfDay: Duration {
        let local = secondsSince1970 + Double(utcOffsetSeconds)
        let day = 86_400.0
        let since = local - (local / day).rounded(.down) * day
        return .milliseconds(Int64((since * 1000).rounded(.down)))
    }

    /// Orders by the moment, whatever the zones.
    public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    /// Local date and time with the offset, e.g. `2026-11-28 14:03:07 +01:00`.
    public var description: String {
        let local = Int64((secondsSince1970 + Double(utcOffsetSeconds)).rounded(.down))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let seconds = Int(local - days * 86_400)
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        let offset = abs(utcOffsetSeconds) / 60
        return "\(year)-\(Self.two(month))-\(Self.two(day)) \(Self.two(seconds / 3600)):\(Self.two(seconds / 60 % 60)):"
            + "\(Self.two(seconds % 60)) \(utcOffsetSeconds < 0 ? "-" : "+")\(Self.two(offset / 60)):\(Self.two(offset % 60))"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The proleptic Gregorian date of a day count (H. Hinnant's `civil_from_days`).
    private static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = daysSince1970 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// The host's wall clock and time zone (`clock_gettime`, `localtime_r`).
public struct SystemWallClock: WallClock {
    /// The host's clock.
    public init() {}

    public func now() -> WallClockTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var local = tm()
        localtime_r(&seconds, &local)
        return WallClockTime(
            secondsSince1970: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9, utcOffsetSeconds: Int(local.tm_gmtoff))
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
