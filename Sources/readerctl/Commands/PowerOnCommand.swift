import ArgumentParser
import CardReaderKit

struct PowerOnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power-on",
        abstract: "Power the chip card and print its ATR (answer to reset).",
        discussion: ExitStatus.help)

    @OptionGroup var reader: ReaderOptions
    @OptionGroup var output: OutputOptions

    @Option(help: ArgumentHelp("Seconds to wait for a card to be inserted, 0…255.", valueName: "seconds"))
    var wait = 0

    func validate() throws {
        guard (0...255).contains(wait) else { throw ValidationError("--wait must be within 0…255 seconds") }
    }

    func run() async throws {
        let wait = Duration.seconds(wait)
        let atr = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            try await reader.powerOnCard(waitingForInsertion: wait)
        }
        Output.print(ResponseBody.answerToReset(atr).fields(), json: output.json)
    }
}
