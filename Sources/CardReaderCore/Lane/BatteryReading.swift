/// A reader's battery level, with when and where it was read.
public struct BatteryReading: Sendable, Hashable, CustomStringConvertible {
    /// Where a level came from.
    public struct Source: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// GET INFO's tag `04`.
        public static let readerInfo = Self(rawValue: "get-info")
        /// The Battery service's level (`2A19`), as the link carries it (over BlueZ,
        /// `org.bluez.Battery1`).
        public static let batteryService = Self(rawValue: "battery-service")
        /// The reader's battery-low event (`E0 03`).
        public static let lowBatteryEvent = Self(rawValue: "battery-low-event")
    }

    /// 0 … 100.
    public var percent: UInt8
    /// Whether the level is below the lane's low mark (``CardReader/Configuration/lowBatteryPercent``),
    /// or the reader said so itself (`E0 03`).
    public var isLow: Bool
    /// When it was read.
    public var readAt: WallClockTime
    /// Where it was read.
    public var source: Source

    /// A reading of `percent`, low or not, read at `readAt` from `source`.
    public init(percent: UInt8, isLow: Bool, readAt: WallClockTime, source: Source) {
        self.percent = percent
        self.isLow = isLow
        self.readAt = readAt
        self.source = source
    }

    /// E.g. `85% (get-info, 2026-11-28 09:00:00 +00:00)` or `15%, low (battery-low-event, …)`.
    public var description: String {
        "\(percent)%\(isLow ? ", low" : "") (\(source), \(readAt))"
    }
}
