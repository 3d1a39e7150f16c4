import ArgumentParser
import CardReaderKit
import CardReaderKitTesting
import FoundationEssentials
import Logging

/// Which reader `pair` and `unpair` act on: one Bluetooth reader, or the emulated one.
struct PairingTargetOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The Bluetooth reader: its advertised name or a prefix of it (VPOS3356-1A2B, VPOS), or its address.",
        valueName: "name|address"))
    var reader: String?

    @Option(help: ArgumentHelp("The Bluetooth adapter to use, e.g. hci1 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Flag(help: "The built-in emulated reader instead: it keeps bonds for this run only.")
    var emulated = false

    @OptionGroup var emulator: EmulatedReaderOptions

    @Option(help: ArgumentHelp(
        "The file where pairings are noted with their time (default: ~/.local/state/cardreaderkit/bonds.json, under $XDG_STATE_HOME if set).",
        valueName: "file"), completion: Completions.bondStore)
    var bondStore: String?

    /// The bond store these options name.
    var store: ReaderBondStore? { bondStore.map { ReaderBondStore(file: URL(fileURLWithPath: $0)) } ?? .userDefault }

    func validate() throws {
        try ReaderNameCheck.check(reader)
        switch (reader != nil, emulated) {
        case (false, false): throw ValidationError("name the reader: --reader NAME|ADDRESS, or --emulated")
        case (true, true): throw ValidationError("--reader and --emulated exclude each other")
        case (true, false):
            guard emulator.isDefault else { throw ValidationError("--card, --scenario and --firmware apply to the emulated reader only") }
        case (false, true):
            guard adapter == nil, bondStore == nil else {
                throw ValidationError("--adapter and --bond-store apply to a Bluetooth reader only")
            }
        }
    }

    /// Refuses a reader cardreaderd holds (its bond is the service's to change), naming the
    /// service's client.
    func refuseIfHeldByService(json: Bool) throws {
        guard let reader, let refusal = ServiceHeldReaders.refusal(for: reader) else { return }
        CommandRun.report(refusal, json: json)
        throw refusal.exitStatus.exitCode
    }

    /// The connector these options name.
    func connector(timeout: Duration = .seconds(30)) -> any PairingReaderConnector {
        if let reader {
            // What pair and unpair did is their output: the library's log says only warnings.
            var logger = Logger(label: "CardReaderKit.BlueZ")
            logger.logLevel = .warning
            return BlueZReaderConnector(reader: reader, adapter: adapter, timeout: timeout, logger: logger, bondStore: store)
        }
        return EmulatedReaderConnector(reader: emulator.makeReader())
    }
}
