import ArgumentParser

/// Which reader a subcommand talks to, and how.
struct ReaderOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The Bluetooth reader: its advertised name or a prefix of it (VPOS3356-1A2B, VPOS), or its address.",
        valueName: "name|address"))
    var reader: String?

    @Option(help: ArgumentHelp("The Bluetooth adapter to use, e.g. hci1 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Flag(help: "Use the built-in emulated reader instead (no Bluetooth needed).")
    var emulated = false

    @Option(help: ArgumentHelp(
        "Emulated reader: the card it holds, a card file such as Fixtures/cards/visa-test.json (default: the built-in Visa test card).",
        valueName: "file"))
    var card: String?

    @Option(
        name: .customLong("scenario"),
        help: ArgumentHelp(
            "Emulated reader: what happens, e.g. swipe-after=2, bad-swipe, no-swipe, insert-after=1, remove-during-apdu=2, battery=5, busy, silent. Repeat to combine; 'readerctl scenarios' lists them all.",
            valueName: "scenario"))
    var scenarios: [String] = []

    @Option(help: ArgumentHelp("Emulated reader: the ATT MTU of the link, 23…247.", valueName: "bytes"))
    var mtu = 23

    @Option(help: ArgumentHelp("Seconds to find and connect to the reader.", valueName: "seconds"))
    var connectTimeout = 5.0

    @Flag(help: "Log every frame to standard error (card data redacted).")
    var verbose = false

    func validate() throws {
        switch (reader, emulated) {
        case (nil, false):
            throw ValidationError("name the reader: --reader NAME|ADDRESS for a Bluetooth reader, or --emulated")
        case (.some, true):
            throw ValidationError("--reader and --emulated exclude each other")
        case (.some, false):
            guard card == nil, scenarios.isEmpty, mtu == 23 else {
                throw ValidationError("--card, --scenario and --mtu apply to the emulated reader only")
            }
        case (nil, true):
            guard adapter == nil else { throw ValidationError("--adapter applies to a Bluetooth reader only") }
        }
        guard (23...247).contains(mtu) else { throw ValidationError("--mtu must be within 23…247") }
        guard connectTimeout > 0, connectTimeout <= 600 else {
            throw ValidationError("--connect-timeout must be within 0…600 seconds")
        }
    }
}

/// How results are printed.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text (field names in the README).")
    var json = false

    @Flag(help: "Show card data in full: card numbers, names, discretionary data, APDU data.")
    var reveal = false
}
