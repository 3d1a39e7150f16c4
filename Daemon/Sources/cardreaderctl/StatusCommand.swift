import ArgumentParser
import CardReaderContract
import CommandLineOutput

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show a reader's status: link, battery, firmware, why the link last ended, who holds it.")

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var service: ServiceOptions

    func run() async throws {
        let name = readerName.reader
        let readers = try await ServiceCall.perform(service) { client in
            try await client.listReaders(Cardreader_V1_ListReadersRequest()).readers
        }
        guard let reader = readers.first(where: { $0.name == name }) else {
            ServiceCall.report(
                "no reader named \(name): the service holds \(readers.map(\.name).joined(separator: ", "))", fix: nil,
                identifier: "unknown-reader", json: service.json)
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        Output.print(StatusFields.of(reader.status), json: service.json)
    }
}
