import ArgumentParser
import CardReaderKit

/// Which reader a single-reader command (swipe, power-on, apdu, emv) talks to, and how.
/// Unknown properties are the link's (`options.verbose`: ``ReaderLinkOptions/verbose``).
@dynamicMemberLookup
struct ReaderOptions: ParsableArguments, ReaderSelection {
    @Option(help: ArgumentHelp(
        "The Bluetooth reader: its advertised name or a prefix of it (VPOS3356-1A2B, VPOS), or its address.",
        valueName: "name|address"))
    var reader: String?

    @OptionGroup var link: ReaderLinkOptions

    @OptionGroup var emulator: EmulatedReaderOptions

    subscript<Value>(dynamicMember keyPath: KeyPath<ReaderLinkOptions, Value>) -> Value { link[keyPath: keyPath] }

    func validate() throws {
        try ReaderNameCheck.check(reader)
        switch (reader != nil, link.emulated) {
        case (false, false): throw ValidationError("name the reader: --reader NAME|ADDRESS for a Bluetooth reader, or --emulated")
        case (true, true): throw ValidationError("--reader and --emulated exclude each other")
        default: try link.check(emulatedReaders: link.emulated, emulator: emulator)
        }
    }

    /// The Bluetooth reader `--reader` names, or the emulated reader.
    func connector() -> any ReaderConnector { link.connector(reader: reader, emulator: emulator) }
}
