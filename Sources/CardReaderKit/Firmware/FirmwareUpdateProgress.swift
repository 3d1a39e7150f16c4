import ReaderProtocol

/// Where a firmware update is, for a progress display: its phase, the image's bytes the
/// reader has acknowledged, the rate and the time left.
public struct FirmwareUpdateProgress: Sendable, Hashable, CustomStringConvertible {
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

    public var phase: Phase
    /// Image bytes the reader has acknowledged.
    public var bytesSent: Int
    /// The image's size.
    public var totalBytes: Int
    /// Time since the update started.
    public var elapsed: Duration
    /// Acknowledged bytes per second since the transfer started (nil before it has).
    public var bytesPerSecond: Double?

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

/// A firmware update that succeeded.
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
}

/// How a firmware update runs; the defaults are the reader's documented bounds (§7, §8).
/// The YModem deadlines are the reader's: the update adds the reader's
/// ``CardReader/Configuration/linkMargin`` to each, as it does to commands'.
public struct FirmwareUpdateOptions: Sendable, Hashable {
    /// The YModem sender's attempts and deadlines.
    public var ymodem: YModemSender.Configuration
    /// The battery level below which the update is refused before it starts (§7.1: 30 %).
    public var minimumBattery: UInt8
    /// How long to wait for the reader to drop the link after accepting the image (§7.2:
    /// within 2 s), before the host closes it itself.
    public var restartDisconnectTimeout: Duration
    /// How long the restarted reader may take to be connected to again (§7.2: it
    /// advertises within 15 s).
    public var returnTimeout: Duration
    /// The name block 0 announces; nil: `<model>-<version>.vfw`.
    public var fileName: String?

    public init(
        ymodem: YModemSender.Configuration = YModemSender.Configuration(), minimumBattery: UInt8 = 30,
        restartDisconnectTimeout: Duration = .seconds(5), returnTimeout: Duration = .seconds(45), fileName: String? = nil
    ) {
        self.ymodem = ymodem
        self.minimumBattery = minimumBattery
        self.restartDisconnectTimeout = restartDisconnectTimeout
        self.returnTimeout = returnTimeout
        self.fileName = fileName
    }
}
