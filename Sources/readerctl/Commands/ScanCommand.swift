import ArgumentParser
import BLETransport
import CardReaderKit
import CommandLineOutput
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List nearby readers live: name, address, RSSI.",
        discussion: """
            Runs an LE discovery through BlueZ and prints a line whenever a reader appears or \
            its name or signal changes. Readers are found by name prefix, since many do not \
            advertise their service UUID. Stops after --duration or Ctrl-C (exit 0).

            \(ExitStatus.help([.linkLost]))
            """)

    @Option(help: ArgumentHelp("The Bluetooth adapter, e.g. hci1 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Option(help: ArgumentHelp("Only devices whose name starts with this.", valueName: "prefix"))
    var namePrefix = ReaderGATTProfile.localNamePrefix

    @Flag(help: "Every LE device, not only readers.")
    var all = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to scan, 1-3600.", valueName: "seconds"))
    var duration = 10

    @Flag(help: "Print one JSON object per line.")
    var json = false

    func validate() throws {
        guard (1...3600).contains(duration) else { throw ValidationError("--duration must be within 1…3600 seconds") }
    }

    func run() async throws {
        let filter = DiscoveryFilter(namePrefix: all ? nil : namePrefix)
        let (adapter, json, duration) = (adapter, json, duration)
        try await CommandRun.perform(interruption: .stops) { () throws(BluetoothError) in
            let session = try await BluetoothSession.open()
            defer { Task { await session.close() } }
            let discovery = try await session.adapter(named: adapter, startingWithin: .seconds(duration))
                .discover(filter)
            let timer = Task {
                try? await Task.sleep(for: .seconds(duration))
                await discovery.stop()
            }
            defer { timer.cancel() }
            var shown: [String: String] = [:]
            for try await device in discovery {
                let line = Self.line(device, json: json)
                guard shown[device.address] != line else { continue }
                shown[device.address] = line
                print(line)
                fflush(nil)
            }
        }
    }

    private static func line(_ device: BluetoothDeviceInfo, json: Bool) -> String {
        if json {
            var fields: [String: FieldValue] = ["address": .text(device.address)]
            fields["name"] = device.name.map(FieldValue.text)
            fields["rssi"] = device.rssi.map { .integer(Int($0)) }
            return Output.json(fields)
        }
        let rssi = device.rssi.map { "\($0)" }
        let name = (device.name ?? "(no name)").padded(to: 20)
        return "\(name) \(device.address)  RSSI \(rssi.map { "\($0) dBm" } ?? "—")"
    }
}
