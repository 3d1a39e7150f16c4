/// Where a firmware update is, for a progress display: its phase, the image's bytes the
/// reader has acknowledged, the rate and the time left.
public struct FirmwareUpdateProgress: Sendable, Hashable, CustomStringConvertible {
    /// The steps of an update, in order; the raw value is what ``description`` shows.
    public enum Phase: String, Sendable, Hashable {
        /// GET INFO: model, battery and version checked against the image.
        case checking
        /// ENTER FIRMWARE UPDATE sent; waiting for the reader's first `C`.
        case entering
        /// YModem blocks going out.
        case transferring
        /// The whole image sent; the reader verifies it.
        case verifying
        /// The reader accepted the image and restarts.
        case restarting
        /// Connecting to the restarted reader.
        case reconnecting
        /// GET INFO on the new firmware.
        case confirming
        /// The reader runs the new version.
        case completed
    }

    /// The step the update is in.
    public var phase: Phase
    /// Image bytes the reader has acknowledged.
    public var bytesSent: Int
    /// The image's size.
    public var totalBytes: Int
    /// Time since the update started.
    public var elapsed: Duration
    /// Acknowledged bytes per second since the transfer started (nil before it has).
    public var bytesPerSecond: Double?

    /// A progress report, as the update makes them (and as tests and progress displays build them).
    public init(phase: Phase, bytesSent: Int, totalBytes: Int, elapsed: Duration, bytesPerSecond: Double?) {
        self.phase = phase
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
        self.elapsed = elapsed
        self.bytesPerSecond = bytesPerSecond
    }

    /// 0 … 1.
    public var fractionCompleted: Double {
        totalBytes == 0 ? 0 : Double(bytesSent) / Double(totalBytes)
    }

    /// The transfer time left at the current rate (nil until there is a rate).
    public var estimatedTimeRemaining: Duration? {
        guard let rate = bytesPerSecond, rate > 0, phase == .transferring || phase == .entering else { return nil }
        return .milliseconds(Int((Double(totalBytes - bytesSent) / rate * 1000).rounded()))
    }

    /// E.g. `transferring 42% (1290/3028 bytes, 5.1 KiB/s, 0:01 left)`.
    public var description: String {
        var text = "\(phase.rawValue) \(Int(fractionCompleted * 100))% (\(bytesSent)/\(totalBytes) bytes"
        if let rate = bytesPerSecond {
            text += ", " + String(Double(Int(rate / 102.4)) / 10) + " KiB/s"
        }
        if let left = estimatedTimeRemaining {
            let seconds = Int(left.components.seconds)
            text += ", \(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60) left"
        }
        return text + ")"
    }
}
