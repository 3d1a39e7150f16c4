import CPCSCDriverInterface

/// The driver's log: pcscd's own (`log_msg`), so that `pcscd --foreground --debug` and its
/// journal show it. Messages name readers and say what happened; never an APDU's bytes.
package struct DriverLog: Sendable {
    package enum Priority: Int32, Sendable {
        case debug = 0
        case info = 1
        case error = 2
        case critical = 3
    }

    private let write: @Sendable (Priority, String) -> Void

    /// pcscd's log.
    package static let pcscd = DriverLog { priority, message in
        pcsc_driver_log(priority.rawValue, "cardreaderd-ifd: " + message)
    }

    /// A log that hands each message to `write`.
    package init(_ write: @escaping @Sendable (Priority, String) -> Void) {
        self.write = write
    }

    package func debug(_ message: String) { write(.debug, message) }
    package func info(_ message: String) { write(.info, message) }
    package func error(_ message: String) { write(.error, message) }
}
