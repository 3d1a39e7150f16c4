import ArgumentParser
import CardReaderKit
import CardReaderKitTesting
import Logging

/// How readerctl reaches readers, whichever the command names: the Bluetooth adapter and
/// link, or the emulated reader (what it holds and does is ``EmulatedReaderOptions``, a
/// group beside this one). Part of ``ReaderOptions`` (one reader) and
/// ``FleetReaderOptions`` (one or several).
///
/// A command declares its option groups side by side, never one inside another:
/// argument-parser checks every group each time it parses a command line in a debug build,
/// and a group inside another once for each check of the groups around it. With groups
/// three deep a debug `readerctl swipe --emulated` spent 0.25 s of processor time there;
/// side by side, the whole run takes 0.05 s.
struct ReaderLinkOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The Bluetooth adapter to use, e.g. hci1 (default: the first powered one). Several readers (--reader twice, --all) can be spread over several adapters: hci1,hci2.",
        valueName: "hciN"))
    var adapter: String?

    /// The adapters `--adapter` names, in order (none: the first powered one).
    var adapters: [String] {
        (adapter ?? "").split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
    }

    @Flag(help: "Use the built-in emulated reader instead (no Bluetooth needed).")
    var emulated = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The ATT MTU, 23-247: for the emulated reader, the link's (default 23); for a Bluetooth reader, the largest to use, so packets are at most MTU - 3 bytes (default: what the link negotiated, at most 247).",
        valueName: "bytes"))
    var mtu: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to find and connect to the reader.", valueName: "seconds"))
    var connectTimeout = Seconds(5)

    @Option(help: ArgumentHelp(
        "Bluetooth reader: how notifications travel from bluetoothd. acquired-socket uses the AcquireNotify socket where bluetoothd offers it (else D-Bus messages); dbus-messages always uses StartNotify. Writes are always acknowledged Write Requests (WriteValue), which keep their order on any link. --verbose shows what a link uses.",
        valueName: "transport"))
    var valueTransport: BlueZValueTransport = .acquiredSocket

    @Flag(help: "Run card operations (swipe, chip, EMV, firmware update) on an unencrypted link: only a reader before firmware 3.0 gives one. Card data then crosses the air in clear.")
    var allowUnencrypted = false

    @Flag(help: "Log every frame to standard error (card data redacted), and how the link carries them.")
    var verbose = false

    func validate() throws {
        if let mtu, !(23...247).contains(mtu) { throw ValidationError("--mtu must be within 23…247") }
        try OptionBounds.checkConnect(timeout: connectTimeout)
    }

    /// Checks the options against the kind of reader the command names: emulated ones take
    /// no Bluetooth option, a Bluetooth reader no emulator option, and one reader one adapter.
    func check(emulatedReaders: Bool, emulator: EmulatedReaderOptions, severalReaders: Bool = false) throws {
        if adapters.count > 1, !severalReaders {
            throw ValidationError("several adapters (--adapter \(adapter ?? "")) are for several readers: name them with --reader twice, or --all")
        }
        if emulatedReaders {
            guard adapter == nil, valueTransport == .acquiredSocket else {
                throw ValidationError("--adapter and --value-transport apply to a Bluetooth reader only")
            }
        } else {
            guard emulator.isDefault else {
                throw ValidationError("--card, --scenario, --firmware and --max-bonds apply to the emulated reader only")
            }
        }
    }

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

    /// A connector to the Bluetooth reader `reader` (a name prefix or an address), or to the
    /// emulated reader `emulator` describes when it is nil.
    func connector(reader: String?, emulator: EmulatedReaderOptions) -> any ReaderConnector {
        if let reader {
            if let refusal = ServiceHeldReaders.refusal(for: reader) { return RefusedConnector(reader: reader, refusal: refusal) }
            return BlueZReaderConnector(
                reader: reader, adapter: adapter, timeout: connectTimeout.duration, valueTransport: valueTransport,
                maximumMTU: mtu ?? 247, logger: logger(label: "CardReaderKit.BlueZ"))
        }
        return EmulatedReaderConnector(reader: emulator.makeReader(), mtu: mtu ?? 23)
    }
}

/// The options of a command that runs through ``ReaderRun``: they name one reader.
protocol ReaderSelection {
    /// How the reader is reached.
    var link: ReaderLinkOptions { get }
    /// How a long-held reader is kept, for the commands that hold one; nil for the others.
    var lane: LaneOptions? { get }
    /// A connector to the one reader the options name.
    func connector() throws -> any ReaderConnector
}

extension ReaderSelection {
    var lane: LaneOptions? { nil }

    /// The reader's configuration: the link options', with the lane behaviour when the
    /// command holds its readers.
    func readerConfiguration(connectTimeout: Duration = .seconds(5)) -> CardReader.Configuration {
        let base = link.readerConfiguration(connectTimeout: connectTimeout)
        return lane.map { $0.apply(to: base) } ?? base
    }
}

extension BlueZValueTransport: ExpressibleByArgument {}

/// A connector whose every attempt fails with `refusal`: a reader readerctl must not take
/// (the service holds it).
struct RefusedConnector: ReaderConnector {
    let reader: String
    let refusal: LinkError

    var readerDescription: String { reader }

    func connect() async throws(LinkError) -> any ReaderLink { throw refusal }
}
