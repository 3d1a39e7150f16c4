import ArgumentParser
import CardReaderKit

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the reader's model, serial number, firmware, battery and capabilities.",
        discussion: ExitStatus.help)

    @OptionGroup var reader: ReaderOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let info = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            try await reader.info()
        }
        Output.print(ResponseBody.info(info).fields(), json: output.json)
    }
}
