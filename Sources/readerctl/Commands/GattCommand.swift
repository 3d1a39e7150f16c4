import ArgumentParser
import BLETransport
import CardReaderKit
import CommandLineOutput
import ReaderProtocol

struct GattCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Show a device's GATT table: every service, characteristic and descriptor, flags and readable values.",
        discussion: """
            Connects to the device (a reader, or any LE device by name prefix or address), \
            reads every readable characteristic and descriptor, and prints the table \
            engineers use to find a reader's data characteristics. Values print as hex, with \
            the text when it is printable.

            \(ExitStatus.help([.linkLost]))
            """)

    @Option(help: ArgumentHelp("The device: its name or a prefix of it, or its address.", valueName: "name|address"))
    var reader: String

    @Option(help: ArgumentHelp("The Bluetooth adapter, e.g. hci1 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to find and connect to the device, up to 600.", valueName: "seconds"))
    var connectTimeout = Seconds(15)

    @Flag(help: "Print the table as one JSON object.")
    var json = false

    func validate() throws {
        try ReaderNameCheck.check(reader)
        try OptionBounds.checkConnect(timeout: connectTimeout)
    }

    func run() async throws {
        let filter = DiscoveryFilter(nameOrAddress: reader)
        let (adapter, timeout, json) = (adapter, connectTimeout.duration, json)
        try await CommandRun.perform(interruption: .stops) { () throws(BluetoothError) in
            let session = try await BluetoothSession.open()
            defer { Task { await session.close() } }
            let bluetooth = try await session.adapter(named: adapter, startingWithin: timeout)
            let found = try await bluetooth.find(filter, timeout: timeout)
            let connection = try await bluetooth.device(at: found.path).connect(timeout: timeout)
            do throws(BluetoothError) {
                let table = try await connection.gattTable(readValues: true)
                await connection.disconnect()
                print(json ? Self.json(table, device: found) : Self.text(table, device: found))
            } catch {
                await connection.disconnect()
                throw error
            }
        }
    }

    private static func text(_ table: GattTable, device: BluetoothDeviceInfo) -> String {
        var lines = ["\(device.summary)"]
        for service in table.services {
            lines.append("service \(label(service.uuid))\(service.isPrimary ? "" : " (secondary)")")
            for characteristic in service.characteristics {
                lines.append("  characteristic \(label(characteristic.uuid))  [\(characteristic.flags.joined(separator: ", "))]"
                    + (characteristic.value.map { "  \(rendered($0))" } ?? ""))
                for descriptor in characteristic.descriptors {
                    lines.append("    descriptor \(label(descriptor.uuid))  [\(descriptor.flags.joined(separator: ", "))]"
                        + (descriptor.value.map { "  \(rendered($0))" } ?? ""))
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The table as JSON: one object per attribute, values as hex.
    private struct Attribute: Encodable {
        var uuid: String
        var name: String?
        var primary: Bool?
        var flags: [String]?
        var value: String?
        var characteristics: [Attribute]?
        var descriptors: [Attribute]?

        init(_ uuid: BluetoothUUID, flags: [String]? = nil, value: [UInt8]? = nil) {
            self.uuid = uuid.uuidString
            name = names[uuid.uuidString.lowercased()]
            self.flags = flags
            self.value = value.map { HexText.string($0, separator: "") }
        }
    }

    private struct Table: Encodable {
        var address: String
        var name: String?
        var services: [Attribute]
    }

    private static func json(_ table: GattTable, device: BluetoothDeviceInfo) -> String {
        let services = table.services.map { service in
            var entry = Attribute(service.uuid)
            entry.primary = service.isPrimary
            entry.characteristics = service.characteristics.map { characteristic in
                var entry = Attribute(characteristic.uuid, flags: characteristic.flags, value: characteristic.value)
                entry.descriptors = characteristic.descriptors.map { Attribute($0.uuid, flags: $0.flags, value: $0.value) }
                return entry
            }
            return entry
        }
        return Output.json(Table(address: device.address, name: device.name, services: services))
    }

    private static func label(_ uuid: BluetoothUUID) -> String {
        names[uuid.uuidString.lowercased()].map { "\(uuid) (\($0))" } ?? "\(uuid)"
    }

    /// Hex; a one-byte value also in decimal (e.g. a battery level); longer values also as
    /// text when every byte is printable ASCII.
    private static func rendered(_ value: [UInt8]) -> String {
        let hex = HexText.string(value)
        if value.count == 1 { return "\(hex)  (\(value[0]))" }
        guard !value.isEmpty, value.allSatisfy({ (0x20...0x7E).contains($0) }) else { return hex.isEmpty ? "(empty)" : hex }
        return "\(hex)  \"\(String(decoding: value, as: UTF8.self))\""
    }

    private static let names: [String: String] = [
        "00001800-0000-1000-8000-00805f9b34fb": "Generic Access",
        "00001801-0000-1000-8000-00805f9b34fb": "Generic Attribute",
        "0000180a-0000-1000-8000-00805f9b34fb": "Device Information",
        "0000180f-0000-1000-8000-00805f9b34fb": "Battery",
        "00002a00-0000-1000-8000-00805f9b34fb": "Device Name",
        "00002a01-0000-1000-8000-00805f9b34fb": "Appearance",
        "00002a05-0000-1000-8000-00805f9b34fb": "Service Changed",
        "00002a19-0000-1000-8000-00805f9b34fb": "Battery Level",
        "00002a24-0000-1000-8000-00805f9b34fb": "Model Number",
        "00002a25-0000-1000-8000-00805f9b34fb": "Serial Number",
        "00002a26-0000-1000-8000-00805f9b34fb": "Firmware Revision",
        "00002a29-0000-1000-8000-00805f9b34fb": "Manufacturer Name",
        "00002a50-0000-1000-8000-00805f9b34fb": "PnP ID",
        "00002b29-0000-1000-8000-00805f9b34fb": "Client Supported Features",
        "00002b2a-0000-1000-8000-00805f9b34fb": "Database Hash",
        "00002b3a-0000-1000-8000-00805f9b34fb": "Server Supported Features",
        "00002902-0000-1000-8000-00805f9b34fb": "Client Characteristic Configuration",
        ReaderGATTProfile.dataService: "ISSC transparent UART: the reader's data service",
        ReaderGATTProfile.transmitCharacteristic: "reader TX: frames from the reader (notify)",
        ReaderGATTProfile.receiveCharacteristic: "reader RX: frames to the reader (write)",
    ]
}
