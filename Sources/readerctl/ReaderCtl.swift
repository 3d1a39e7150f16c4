import ArgumentParser

@main
struct ReaderCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readerctl",
        abstract: "Drive and inspect VPOS-class Bluetooth LE card readers.",
        discussion: """
            Every subcommand that talks to a reader takes --emulated to use the built-in \
            emulated reader, with --card and --scenario to choose what it holds and does.

            \(ExitStatus.help)
            """,
        subcommands: [
            InfoCommand.self, SwipeCommand.self, PowerOnCommand.self, APDUCommand.self, EMVCommand.self,
            EventsCommand.self, DecodeCommand.self,
        ]
    )
}
