import ArgumentParser
import BLETransport
import CardReaderKit
import CommandLineOutput
import FoundationEssentials

struct BondsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonds",
        abstract: "List the readers this host holds a bond with, and when each was paired.",
        discussion: """
            The bonds are BlueZ's (its bonded devices on the adapter); the time and method \
            are what `readerctl pair` (or a backend's BlueZReaderConnector) noted in the bond \
            store. A bond made outside CardReaderKit shows no time; one the store lists but \
            BlueZ no longer holds is listed as gone (unpaired elsewhere).

            \(ExitStatus.help([.linkLost]))
            """)

    @Option(help: ArgumentHelp("The Bluetooth adapter, e.g. hci1 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Option(help: ArgumentHelp(
        "The file where pairings are noted (default: ~/.local/state/cardreaderkit/bonds.json, under $XDG_STATE_HOME if set).",
        valueName: "file"), completion: Completions.bondStore)
    var bondStore: String?

    @Flag(help: "Print JSON for scripts instead of text: one object per bond.")
    var json = false

    func run() async throws {
        let store = bondStore.map { ReaderBondStore(file: URL(fileURLWithPath: $0)) } ?? .userDefault
        let adapterName = adapter
        let (adapter, bonded) = try await CommandRun.perform(json: json) { () throws(BluetoothError) in
            let session = try await BluetoothSession.open()
            do throws(BluetoothError) {
                let adapter = try await session.adapter(named: adapterName)
                let bonded = try await adapter.knownDevices().filter(\.isBonded)
                await session.close()
                return (adapter.name, bonded)
            } catch {
                await session.close()
                throw error
            }
        }
        let noted = (try? store?.bonds()) ?? []
        var lines: [[String: String]] = bonded.map { device in
            var fields = ["reader": device.name ?? device.alias ?? device.address, "address": device.address, "adapter": adapter]
            if let bond = noted.last(where: { $0.address == device.address.uppercased() && $0.adapter == adapter }) {
                fields["pairedAt"] = bond.pairedAt.formatted(.iso8601)
                fields["method"] = bond.method
            } else {
                fields["pairedAt"] = "unknown (not paired through CardReaderKit)"
            }
            fields["state"] = "bonded"
            return fields
        }
        let held = Set(bonded.map { $0.address.uppercased() })
        for bond in noted where bond.adapter == adapter && !held.contains(bond.address) {
            lines.append([
                "reader": bond.name ?? bond.address, "address": bond.address, "adapter": adapter,
                "pairedAt": bond.pairedAt.formatted(.iso8601), "method": bond.method, "state": "gone (unpaired elsewhere)",
            ])
        }
        if lines.isEmpty, !json { print("no bond on \(adapter)") }
        for fields in lines {
            if json {
                Output.print(fields.mapValues(FieldValue.text), json: true)
            } else {
                let method = fields["method"].map { ", \($0)" } ?? ""
                print("\(fields["reader"] ?? "")  \(fields["address"] ?? "")  \(fields["state"] ?? "")  paired \(fields["pairedAt"] ?? "")\(method)")
            }
        }
    }
}
