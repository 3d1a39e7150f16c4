import ArgumentParser
import CardReaderKit
import CardReaderKitTesting
import Logging

/// Which reader a subcommand talks to, and how.
struct ReaderOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The Bluetooth reader: its advertised name or a prefix of it (VPOS3356-1A2B, VPOS), or its address. info, events and update-firmware take it several times.",
        valueName: "name|address"))
    var reader: [String] = []

    @Flag(help: "info, events, update-firmware: every reader in range (names starting with VPOS), found by a scan of --scan-timeout seconds.")
    var all = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --all: seconds to scan for readers.", valueName: "seconds"))
    var scanTimeout = Seconds(5)

    @Option(help: ArgumentHelp("The Bluetooth adapter to use, e.g. hci1 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Flag(help: "Use the built-in emulated reader instead (no Bluetooth needed).")
    var emulated = false

    @OptionGroup var emulator: EmulatedReaderOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The ATT MTU, 23…247: for the emulated reader, the link's (default 23); for a Bluetooth reader, the largest to use, so packets are at most MTU − 3 bytes (default: what the link negotiated, at most 247).",
        valueName: "bytes"))
    var mtu: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds to find and connect to the reader. With several readers, connections are set up one at a time and each has these seconds from its turn.",
        valueName: "seconds"))
    var connectTimeout = Seconds(5)

    @Option(help: ArgumentHelp(
        "Bluetooth reader: how notifications travel from bluetoothd. acquired-socket uses the AcquireNotify socket where bluetoothd offers it (else D-Bus messages); dbus-messages always uses StartNotify. Writes are always acknowledged Write Requests (WriteValue), which keep their order on any link. --verbose shows what a link uses.",
        valueName: "transport"))
    var valueTransport: BlueZValueTransport = .acquiredSocket

    @Flag(help: "Run card operations (swipe, chip, EMV, firmware update) on an unencrypted link: only a reader before firmware 3.0 gives one. Card data then crosses the air in clear.")
    var allowUnencrypted = false

    @Flag(help: "Log every frame to standard error (card data redacted), and how the link carries them.")
    var verbose = false

    /// A logger for the library: warnings only, everything with `--verbose`; standard error
    /// stays quiet on a run that goes well.
    func logger(label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = verbose ? .trace : .warning
        return logger
    }

    /// The reader's configuration for these options, connecting within `connectTimeout`.
    func readerConfiguration(connectTimeout: Duration = .seconds(5)) -> CardReader.Configuration {
        CardReader.Configuration(connectTimeout: connectTimeout, allowsUnencryptedLink: allowUnencrypted)
    }

    func validate() throws {
        let bluetooth = !reader.isEmpty || all
        switch (bluetooth, emulated) {
        case (false, false):
            throw ValidationError("name the reader: --reader NAME|ADDRESS for a Bluetooth reader (or --all), or --emulated")
        case (true, true):
            throw ValidationError("--reader/--all and --emulated exclude each other")
        case (true, false):
            guard emulator.isDefault else {
                throw ValidationError("--card, --scenario and --firmware apply to the emulated reader only")
            }
            guard reader.isEmpty || !all else { throw ValidationError("--reader and --all exclude each other") }
        case (false, true):
            guard adapter == nil, valueTransport == .acquiredSocket else {
                throw ValidationError("--adapter and --value-transport apply to a Bluetooth reader only")
            }
        }
        if let mtu, !(23...247).contains(mtu) { throw ValidationError("--mtu must be within 23…247") }
        try OptionBounds.checkConnect(timeout: scanTimeout, option: "--scan-timeout")
        try OptionBounds.checkConnect(timeout: connectTimeout)
    }

    /// Whether the options name more than one reader (several --reader, or --all).
    var namesSeveral: Bool { reader.count > 1 || all }

    /// The connector these options name: BlueZ for `--reader`, else the emulated reader.
    func connector() throws -> any ReaderConnector {
        guard !namesSeveral else {
            throw ValidationError("this command talks to one reader: give --reader once (info, events and update-firmware take several)")
        }
        if let reader = reader.first {
            return BlueZReaderConnector(
                reader: reader, adapter: adapter, timeout: connectTimeout.duration, valueTransport: valueTransport,
                maximumMTU: mtu ?? 247, logger: logger(label: "CardReaderKit.BlueZ"))
        }
        return EmulatedReaderConnector(reader: emulator.makeReader(), mtu: mtu ?? 23)
    }
}

/// How results are printed.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text (field names in the README).")
    var json = false

    @Flag(help: "Show card data in full: card numbers, names, discretionary data, APDU data.")
    var reveal = false

    @Option(help: ArgumentHelp(
        "Record the run's writes and notifications, timestamped, in FILE (the format decode reads). Written only when every card in it is a published test card, or with --reveal.",
        valueName: "file"), completion: Completions.recording)
    var record: String?

    /// `--record`'s file can be written: checked before any reader is touched, so a session
    /// is never lost to a recording that cannot be kept.
    func validate() throws {
        if let record { try NamedFile(path: record, role: "recording").checkWritable(exitStatus: .unreadableInput) }
    }

    /// `--record` takes one reader.
    func checkRecording(readers: ReaderOptions) throws {
        guard record == nil || !readers.namesSeveral else {
            throw ValidationError("--record records one reader's session: give --reader once")
        }
    }
}

extension BlueZValueTransport: ExpressibleByArgument {}
