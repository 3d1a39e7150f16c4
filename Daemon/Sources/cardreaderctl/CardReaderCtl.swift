import ArgumentParser
import CommandLineOutput

@main
struct CardReaderCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardreaderctl",
        abstract: "Drive the readers cardreaderd holds, from a terminal: readerctl's commands, through the service.",
        discussion: """
            Each command calls cardreaderd on its socket (/run/cardreaderd/cardreaderd.sock, or \
            --socket), so it works while the service owns the readers, as readerctl cannot. \
            Output and exit statuses are readerctl's: key: value lines, one JSON object with \
            --json; card data masked unless --reveal and the service's reveal list allow it. \
            Ctrl-C cancels the call at the reader (CANCEL) and exits 130.

            \(ExitStatus.table(ServiceCall.exitStatuses, title: "Exit status:"))
            """,
        subcommands: [
            ListCommand.self, InfoCommand.self, StatusCommand.self, SwipeCommand.self, EMVCommand.self, APDUCommand.self,
            EventsCommand.self, UpdateFirmwareCommand.self,
        ])
}
