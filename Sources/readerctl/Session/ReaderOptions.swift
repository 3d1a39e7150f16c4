import ArgumentParser
import BLETransport
import CardReaderKit

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

    @OptionGroup var emulator: EmulatedReaderOptions

    @Option(help: ArgumentHelp("Emulated reader: the ATT MTU of the link, 23…247.", valueName: "bytes"))
    var mtu = 23

    @Option(help: ArgumentHelp("Seconds to find and connect to the reader.", valueName: "seconds"))
    var connectTimeout = 5.0

    @Option(help: ArgumentHelp(
        "Bluetooth reader: how notifications and writes travel through bluetoothd. acquired-socket uses AcquireNotify/AcquireWrite sockets where bluetoothd offers them (else D-Bus messages); dbus-messages always uses StartNotify and WriteValue. --verbose shows which a link uses.",
        valueName: "transport"))
    var valueTransport: GattValueTransport = .acquiredSocket

    @Flag(help: "Log every frame to standard error (card data redacted), and how the link carries them.")
    var verbose = false

    func validate() throws {
        switch (reader, emulated) {
        case (nil, false):
            throw ValidationError("name the reader: --reader NAME|ADDRESS for a Bluetooth reader, or --emulated")
        case (.some, true):
            throw ValidationError("--reader and --emulated exclude each other")
        case (.some, false):
            guard emulator.isDefault, mtu == 23 else {
                throw ValidationError("--card, --scenario and --mtu apply to the emulated reader only")
            }
        case (nil, true):
            guard adapter == nil, valueTransport == .acquiredSocket else {
                throw ValidationError("--adapter and --value-transport apply to a Bluetooth reader only")
            }
        }
        guard (23...247).contains(mtu) else { throw ValidationError("--mtu must be within 23…247") }
        try OptionBounds.checkConnect(timeout: connectTimeout)
    }

    /// The connector these options name: BlueZ for `--reader`, else the emulated reader.
    func connector() throws -> any ReaderConnector {
        if let reader {
            return BlueZReaderConnector(
                reader: reader, adapter: adapter, timeout: .seconds(connectTimeout), valueTransport: valueTransport)
        }
        return EmulatedReaderConnector(reader: emulator.makeReader(), mtu: mtu)
    }
}

/// How results are printed.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text (field names in the README).")
    var json = false

    @Flag(help: "Show card data in full: card numbers, names, discretionary data, APDU data.")
    var reveal = false
}

extension GattValueTransport: ExpressibleByArgument {}
