import ArgumentParser
import BLETransport
import CardReaderKit
import CardReaderKitTesting
import CommandLineOutput
import EmulatedPeripheral
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct EmulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate",
        abstract: "Serve the emulated reader as a real Bluetooth LE peripheral through BlueZ.",
        discussion: """
            Registers a GATT application with the reader's ISSC service (TX notify, RX write), \
            Device Information and Battery services, and advertises the local name \
            (VPOS3356-XXXX by default) on the adapter. A point-of-sale host (or readerctl \
            on another adapter) then finds and drives it like a reader. It holds the same \
            cards and follows the same scenarios as --emulated. Runs until --duration or \
            Ctrl-C (exit 0).

            From firmware 3.0 the reader pairs only in pairing mode: for 120 s after it \
            starts, and after its button is held, which `kill -USR1 PID` does (the PID is \
            printed at start).

            \(ExitStatus.help([.linkLost]))
            """)

    @Option(help: ArgumentHelp("The Bluetooth adapter to serve on, e.g. hci0 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Option(help: ArgumentHelp("The advertised local name (default VPOS3356-XXXX).", valueName: "name"))
    var name: String?

    @OptionGroup var emulator: EmulatedReaderOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The largest ATT MTU to use, 23-247: notifications are at most MTU - 5 bytes (bluetoothd cuts longer values of the Multiple Handle Value Notifications it sends a BlueZ central), even where the link negotiated more.",
        valueName: "bytes"))
    var mtu = 247

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to serve, 1-604800 (default: until Ctrl-C).", valueName: "seconds"))
    var duration: Int?

    func validate() throws {
        try OptionBounds.checkRun(duration: duration)
        guard (23...247).contains(mtu) else { throw ValidationError("--mtu must be within 23…247") }
    }

    func run() async throws {
        // What the reader and its peripheral do (pairing mode, a passkey shown, an image
        // received) is this command's output, on standard error.
        let reader = emulator.makeReader(logger: Logger(label: "CardReaderKit.EmulatedReader"))
        let (adapter, name, duration, mtu) = (adapter, name, duration, mtu)
        let button = PairingButtonSignal { Task { await reader.holdButtonForPairing() } }
        try await CommandRun.perform(interruption: .stops) { () throws(BluetoothError) in
            let peripheral = try await EmulatedReaderPeripheral.start(
                reader: reader, adapter: adapter, localName: name, maximumMTU: mtu,
                logger: Logger(label: "CardReaderKit.EmulatedReaderPeripheral"))
            StandardStreams.writeError(
                "serving \(peripheral.localName) on \(peripheral.adapterName); Ctrl-C to stop"
                    + (await reader.requiresEncryption ? ", kill -USR1 \(getpid()) holds the pairing button" : "") + "\n")
            _ = try? await Task.sleep(for: .seconds(duration ?? Int(Int32.max)))
            await peripheral.stop()
        }
        withExtendedLifetime(button) {}
    }
}
