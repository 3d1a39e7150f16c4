import ArgumentParser
import CardReaderKit
import CardReaderKitTesting

/// The options of a command that takes several readers (info, events, update-firmware)
/// that say which: one or more Bluetooth readers, every one in range, or an emulated fleet.
struct FleetSelectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A Bluetooth reader: its advertised name or a prefix of it (VPOS3356-1A2B, VPOS), or its address. Repeat for several readers, connected one at a time, each within --connect-timeout from its turn. With --emulated-fleet: a member's name or a prefix of it.",
        valueName: "name|address"))
    var reader: [String] = []

    @Flag(help: "Every reader in range (names starting with VPOS), found by a scan of --scan-timeout seconds; with --emulated-fleet, every member.")
    var all = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --all: seconds to scan for readers.", valueName: "seconds"))
    var scanTimeout = Seconds(5)

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "N emulated readers instead, 1-\(FleetReaderOptions.largestEmulatedFleet), named VPOS3356-E001, VPOS3356-E002, ... (no Bluetooth needed); pick them with --all or --reader. Each holds --card under --scenario.",
        valueName: "n"))
    var emulatedFleet: Int?
}

/// Which readers a command that takes several (info, events, update-firmware) talks to:
/// one or more Bluetooth readers, every one in range, the emulated reader, or an emulated
/// fleet; its option groups taken together (``FleetSelectionOptions``,
/// ``ReaderLinkOptions``, ``EmulatedReaderOptions``), which the command declares side by
/// side. Unknown properties are the link's (`options.verbose`: ``ReaderLinkOptions/verbose``).
@dynamicMemberLookup
struct FleetReaderOptions: ReaderSelection {
    var reader: [String]
    var all: Bool
    var scanTimeout: Seconds
    var emulatedFleet: Int?
    var link: ReaderLinkOptions
    var emulator: EmulatedReaderOptions
    var lane: LaneOptions?

    init(
        _ selection: FleetSelectionOptions, _ link: ReaderLinkOptions, _ emulator: EmulatedReaderOptions,
        lane: LaneOptions? = nil
    ) {
        self.lane = lane
        reader = selection.reader
        all = selection.all
        scanTimeout = selection.scanTimeout
        emulatedFleet = selection.emulatedFleet
        self.link = link
        self.emulator = emulator
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<ReaderLinkOptions, Value>) -> Value { link[keyPath: keyPath] }

    /// The most readers `--emulated-fleet` serves.
    static let largestEmulatedFleet = 32

    /// The groups' options checked together; the command's `validate()` calls it.
    func validate() throws {
        try ReaderNameCheck.check(reader)
        try OptionBounds.checkConnect(timeout: scanTimeout, option: "--scan-timeout")
        if let emulatedFleet {
            guard (1...Self.largestEmulatedFleet).contains(emulatedFleet) else {
                throw ValidationError("--emulated-fleet takes 1…\(Self.largestEmulatedFleet) readers")
            }
            guard !link.emulated else {
                throw ValidationError("--emulated and --emulated-fleet exclude each other: --emulated is one reader")
            }
            guard all || !reader.isEmpty else {
                throw ValidationError("name the fleet's readers: --all for every one, or --reader VPOS3356-E001 (repeat it for several)")
            }
            let names = (1...emulatedFleet).map(EmulatedReaderFleet.memberName)
            if let stranger = reader.first(where: { name in !names.contains { $0.hasPrefix(name) } }) {
                throw ValidationError(
                    "no reader of the emulated fleet is named \(stranger): it has \(names[0])\(names.count > 1 ? " to \(names[names.count - 1])" : "")")
            }
        } else {
            switch (!reader.isEmpty || all, link.emulated) {
            case (false, false):
                throw ValidationError(
                    "name the reader: --reader NAME|ADDRESS for a Bluetooth reader (or --all), --emulated, or --emulated-fleet N")
            case (true, true):
                throw ValidationError("--reader/--all and --emulated exclude each other")
            default:
                break
            }
        }
        guard reader.isEmpty || !all else { throw ValidationError("--reader and --all exclude each other") }
        try link.check(emulatedReaders: link.emulated || emulatedFleet != nil, emulator: emulator, severalReaders: runsAsFleet)
    }

    /// Whether the command runs on a fleet (``FleetRun``): several `--reader`, `--all`, or
    /// an emulated fleet; otherwise it talks to one reader (``ReaderRun``).
    var runsAsFleet: Bool { reader.count > 1 || all || emulatedFleet != nil }

    /// The one Bluetooth reader `--reader` names, or the emulated reader (when the command
    /// does not run as a fleet).
    func connector() -> any ReaderConnector { link.connector(reader: reader.first, emulator: emulator) }

    /// The emulated fleet `--emulated-fleet` names: each member holds `--card` under
    /// `--scenario`, on `--firmware`, at `--mtu` (default 23).
    func makeEmulatedFleet() -> EmulatedReaderFleet? {
        guard let emulatedFleet else { return nil }
        return EmulatedReaderFleet(
            count: emulatedFleet, card: emulator.heldCard, scenario: emulator.scenario, configuration: emulator.configuration,
            mtu: link.mtu ?? 23, logger: link.logger(label: "readerctl"))
    }
}
