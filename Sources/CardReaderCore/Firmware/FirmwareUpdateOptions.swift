import ReaderProtocol

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
    /// Whether an image older than the reader's firmware may be sent (default no:
    /// ``FirmwareUpdateError/Code/olderImage``). Link security still refuses an image
    /// before 3.0 on an encrypted link.
    public var allowsOlderImage: Bool
    /// Whether an image may be sent when its version or the reader's does not read as
    /// dotted numbers (`FirmwareVersion`), so that which is newer is unknown (default no:
    /// ``FirmwareUpdateError/Code/versionsNotComparable``).
    public var allowsIncomparableVersions: Bool
    /// Whether the reader runs without a battery (mains power): the update then does not
    /// refuse a reader whose battery level is unknown (default no:
    /// ``FirmwareUpdateError/Code/batteryUnknown``).
    public var readerHasNoBattery: Bool
    /// How long the update waits for a command already running (a swipe the cardholder is
    /// taking) before it fails with ``CardReaderError/Code/queueTimedOut``: 35 s, a 30 s
    /// swipe's deadline.
    public var queueTimeout: Duration

    /// Options with the reader's documented bounds: 30 % battery at least, 5 s for the
    /// restart's drop, 45 s for the reader to return; only a newer image is sent, to a
    /// reader whose battery level is known; 35 s for a running command to end.
    public init(
        ymodem: YModemSender.Configuration = YModemSender.Configuration(), minimumBattery: UInt8 = 30,
        restartDisconnectTimeout: Duration = .seconds(5), returnTimeout: Duration = .seconds(45), fileName: String? = nil,
        allowsOlderImage: Bool = false, allowsIncomparableVersions: Bool = false, readerHasNoBattery: Bool = false,
        queueTimeout: Duration = .seconds(35)
    ) {
        self.readerHasNoBattery = readerHasNoBattery
        self.queueTimeout = queueTimeout
        self.allowsOlderImage = allowsOlderImage
        self.allowsIncomparableVersions = allowsIncomparableVersions
        self.ymodem = ymodem
        self.minimumBattery = minimumBattery
        self.restartDisconnectTimeout = restartDisconnectTimeout
        self.returnTimeout = returnTimeout
        self.fileName = fileName
    }
}
