import ArgumentParser

/// The bounds of readerctl's time options, named in `--help` and checked at parse time: a
/// larger value would overflow `Duration` arithmetic, and none is useful.
enum OptionBounds {
    /// `--duration` of `events` and `emulate`: up to 7 days.
    static let runSeconds = 1...604_800
    /// `--connect-timeout`: more than 0, up to 10 minutes.
    static let connectTimeoutSeconds = 600.0

    static func checkRun(duration: Int?) throws {
        if let duration, !runSeconds.contains(duration) {
            throw ValidationError("--duration must be within \(runSeconds.lowerBound)…\(runSeconds.upperBound) seconds (7 days)")
        }
    }

    static func checkConnect(timeout: Seconds, option: String = "--connect-timeout") throws {
        guard timeout.value > 0, timeout.value <= connectTimeoutSeconds else {
            throw ValidationError("\(option) must be within 0…\(Int(connectTimeoutSeconds)) seconds")
        }
    }
}
