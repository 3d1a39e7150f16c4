import ArgumentParser

@main
struct ReaderCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readerctl",
        abstract: "Drive and inspect VPOS-class Bluetooth LE card readers.",
        subcommands: [DecodeCommand.self]
    )
}
