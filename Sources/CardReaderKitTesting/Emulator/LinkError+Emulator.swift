import CardReaderCore
import ReaderProtocol

/// The emulated reader's own link failures.
extension LinkError.Code {
    /// The emulated reader dropped the link (a scenario's fault).
    public static let emulatorDropped = Self(rawValue: "emulator-dropped")
    /// The emulated reader received no command for its idle timeout and disconnected.
    public static let idleTimeout = Self(rawValue: "idle-timeout")
    /// The emulated reader reset itself (a scenario's scheduled reset).
    public static let readerReset = Self(rawValue: "reader-reset")
    /// The emulated reader already has a central connected.
    public static let connectionRefused = Self(rawValue: "connection-refused")
    /// The ATT MTU asked for is outside 23…247.
    public static let invalidMTU = Self(rawValue: "invalid-mtu")
    /// A write was longer than the link's MTU allows.
    public static let writeTooLong = Self(rawValue: "write-too-long")
    /// The emulated reader refused a write (a scenario's fault).
    public static let writeRefused = Self(rawValue: "write-refused")
    /// The emulated reader restarts on the firmware it has just received.
    public static let firmwareRestart = Self(rawValue: "firmware-restart")
}
