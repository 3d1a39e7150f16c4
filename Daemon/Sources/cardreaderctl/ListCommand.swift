import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the readers the service holds, with their link, battery and firmware.")

    @OptionGroup var service: ServiceOptions

    func run() async throws {
        let readers = try await ServiceCall.perform(service) { client in
            try await client.listReaders(Cardreader_V1_ListReadersRequest()).readers
        }
        for reader in readers {
            var fields = StatusFields.of(reader.status)
            fields["reader"] = .text(reader.name)
            fields["description"] = .text(reader.description_p)
            Output.print(fields, json: service.json)
            if !service.json, reader.name != readers.last?.name { print() }
        }
    }
}
