import ArgumentParser
import Locking

/// The exit status of a side output that failed — a `--record` file that could not be
/// written or was refused — after the command's own work succeeded. The command prints its
/// result first, so nothing the user asked for is lost; readerctl then ends with this
/// status instead of 0.
enum DeferredExitStatus {
    private static let pending = Locked<ExitCode?>(nil)

    /// Notes `status`; the first one noted is the one readerctl ends with.
    static func note(_ status: ExitCode) {
        pending.withLock { if $0 == nil { $0 = status } }
    }

    /// The status noted, if any.
    static var status: ExitCode? { pending.withLock { $0 } }
}
