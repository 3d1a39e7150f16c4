import ArgumentParser
import CardReaderKit

/// Which reader a single-reader command (swipe, power-on, apdu, emv) talks to, and how:
/// its option groups taken together (``ReaderNameOption``, ``ReaderLinkOptions``,
/// ``EmulatedReaderOptions``), which the command declares side by side (see
/// ``ReaderLinkOptions`` for why they are not nested). Unknown properties are the link's
/// (`options.verbose`: ``ReaderLinkOptions/verbose``).
@dynamicMemberLookup
struct ReaderOptions: ReaderSelection {
    var reader: String?
    var link: ReaderLinkOptions
    var emulator: EmulatedReaderOptions
    var lane: LaneOptions?

    init(_ name: ReaderNameOption, _ link: ReaderLinkOptions, _ emulator: EmulatedReaderOptions, lane: LaneOptions? = nil) {
        self.lane = lane
        reader = name.reader
        self.link = link
        self.emulator = emulator
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<ReaderLinkOptions, Value>) -> Value { link[keyPath: keyPath] }

    /// The groups' options checked together; the command's `validate()` calls it.
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
