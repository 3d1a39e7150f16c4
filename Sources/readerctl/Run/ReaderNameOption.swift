import ArgumentParser

/// `--reader` for a command that talks to one reader (swipe, power-on, apdu, emv).
struct ReaderNameOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The Bluetooth reader: its advertised name or a prefix of it (VPOS3356-1A2B, VPOS), or its address.",
        valueName: "name|address"))
    var reader: String?
}
