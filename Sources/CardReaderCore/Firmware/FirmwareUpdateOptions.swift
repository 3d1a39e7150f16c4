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

    /// Options with the reader's documented bounds: 30 % battery at least, 5 s for the
    /// restart's drop, 45 s for the reader to return.
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
