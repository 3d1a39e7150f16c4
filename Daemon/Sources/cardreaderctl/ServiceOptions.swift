import ArgumentParser

/// Where the service is, and how to print.
struct ServiceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("cardreaderd's socket.", valueName: "path"))
    var socket = "/run/cardreaderd/cardreaderd.sock"

    @Flag(help: "Print one JSON object (a line per item for streams) instead of key: value lines.")
    var json = false
}

/// The reader a command drives.
struct ReaderNameOption: ParsableArguments {
    @Option(help: ArgumentHelp("The reader, by the name the service gives it (cardreaderctl list).", valueName: "name"))
    var reader: String
}
