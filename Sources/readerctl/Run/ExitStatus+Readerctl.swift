import ArgumentParser
import CommandLineOutput

/// readerctl's exit statuses as its help prints them, and as its process's exit code.
extension ExitStatus {
    /// The process's exit code; for ``cancelled``, 128 + the number of the signal that
    /// cancelled the work (SIGTERM 143, SIGHUP 129; Ctrl-C 130).
    var exitCode: ExitCode { self == .cancelled ? InterruptSignal.cancelledExitCode : ExitCode(rawValue) }

    /// The whole table, as `readerctl --help` prints it.
    static let help = table(allCases, title: "Exit status:")

    /// The statuses a subcommand can end with, as its `--help` prints them: `statuses`, with
    /// success and a usage error always among them.
    static func help(_ statuses: [ExitStatus]) -> String {
        let all = Set(statuses + [.success, .usage])
        return table(allCases.filter(all.contains), title: "Exit status (every status: readerctl --help):")
    }
}
