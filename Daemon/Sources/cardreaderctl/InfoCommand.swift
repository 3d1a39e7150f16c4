import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput
import SwiftProtobuf

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show the reader's model, serial number, firmware, battery and capabilities.")

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var service: ServiceOptions

    func run() async throws {
        let name = readerName.reader
        let info = try await ServiceCall.perform(service) { client in
            try await client.info(.with { $0.reader = name })
        }
        var fields: [String: FieldValue] = [
            "model": .text(info.model), "serialNumber": .text(info.serialNumber), "firmwareVersion": .text(info.firmwareVersion),
            "capabilities": .text(info.capabilities.joined(separator: ",")),
        ]
        if info.hasBatteryPercent { fields["batteryPercent"] = .integer(Int(info.batteryPercent)) }
        if !info.bootloaderVersion.isEmpty { fields["bootloaderVersion"] = .text(info.bootloaderVersion) }
        Output.print(fields, json: service.json)
    }
}
