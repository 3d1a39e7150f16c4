import ReaderProtocol

/// The emulated reader's fixed properties: what GET INFO says and the firmware's thresholds.
public struct EmulatedReaderConfiguration: Sendable, Hashable {
    /// The name the reader goes by (`VPOS3356-E001`) in connectors' descriptions, errors,
    /// metrics and the reader's logs. Nil: `emulated` and the model (`emulated VPOS3356`).
    /// (What a reader served through bluetoothd advertises is the peripheral's own name.)
    public var name: String?
    /// What GET INFO reports. Its battery level is the starting level (a scenario may
    /// override it); GET INFO reports the current level. Without a level here (and no
    /// `battery` scenario), GET INFO omits tag 04, as a reader that does not report its
    /// battery there, and the battery runs at 100 %.
    public var info: ReaderInfo
    /// The link drops after this long without a command (documentation §8: 5 minutes),
    /// counted from the connection or the last answer, and never while a command waits.
    public var idleTimeout: Duration
    /// The time between two scheduled resets, once the first (`reset-after`) has come: a day.
    public var resetInterval: Duration
    /// How long before a scheduled reset the reader warns the host with `E0 04` (and each
    /// connection made within it starts with one): 2 minutes.
    public var resetWarning: Duration
    /// How long the reader is silent after a scheduled reset (not advertising, refusing
    /// connections) before it runs again: 8 s. Unlike a power-on, the reset does not open
    /// pairing mode.
    public var resetRestartTime: Duration
    /// Below this battery level each connection starts with a battery-low event (`E0 03`).
    public var batteryWarningPercent: UInt8
    /// Below this battery level READ MAGNETIC STRIPE and ICC POWER ON answer `0B`.
    public var batteryRefusalPercent: UInt8
    /// After a firmware image is verified, the reader drops the link this long after its
    /// `ACK` (documentation §7.2: within 2 s).
    public var firmwareDisconnectDelay: Duration
    /// How long the restart on new firmware takes before the reader accepts a connection
    /// again (documentation §7.2: it advertises again within 15 s).
    public var firmwareRestartTime: Duration
    /// How long pairing mode lasts, after power-on or after the button is held
    /// (documentation §1.1: 120 s).
    public var pairingModeDuration: Duration
    /// How many bonds the reader keeps; pairing a further host drops the oldest (§1.1: 8).
    public var maximumBonds: Int
    /// The hosts the reader keeps a bond with from the start (from firmware 3.0): by default
    /// ``EmulatedHost/installedAddress``, the host of an installed lane, which an
    /// ``EmulatedReaderConnector`` is unless told otherwise.
    public var bondedHosts: [String]

    /// Model `VPOS3356`, serial `EMU00001`, firmware `3.1.0`, battery 85 %, magnetic stripe
    /// and contact chip, bootloader `1.0.3`; idle timeout 5 min; thresholds 20 % and 10 %;
    /// after a firmware update it drops the link 0.5 s after its `ACK` and restarts in 3 s;
    /// pairing mode for 120 s, up to 8 bonds, bonded with the installed lane's host; no name;
    /// scheduled resets a day apart, announced 2 minutes ahead, 8 s of silence each.
    public init(
        info: ReaderInfo = ReaderInfo(
            model: "VPOS3356", serialNumber: "EMU00001", firmwareVersion: "3.1.0", batteryPercent: 85,
            capabilities: [.magneticStripe, .contactChip], bootloaderVersion: "1.0.3"),
        idleTimeout: Duration = .seconds(300), batteryWarningPercent: UInt8 = 20, batteryRefusalPercent: UInt8 = 10,
        firmwareDisconnectDelay: Duration = .milliseconds(500), firmwareRestartTime: Duration = .seconds(3),
        pairingModeDuration: Duration = .seconds(120), maximumBonds: Int = 8,
        bondedHosts: [String] = [EmulatedHost.installedAddress], name: String? = nil,
        resetInterval: Duration = .seconds(86_400), resetWarning: Duration = .seconds(120),
        resetRestartTime: Duration = .seconds(8)
    ) {
        self.resetInterval = resetInterval
        self.resetWarning = resetWarning
        self.resetRestartTime = resetRestartTime
        self.name = name
        self.pairingModeDuration = pairingModeDuration
        self.maximumBonds = max(1, maximumBonds)
        self.bondedHosts = bondedHosts
        self.firmwareDisconnectDelay = firmwareDisconnectDelay
        self.firmwareRestartTime = firmwareRestartTime
        self.info = info
        self.idleTimeout = idleTimeout
        self.batteryWarningPercent = batteryWarningPercent
        self.batteryRefusalPercent = batteryRefusalPercent
    }
}
