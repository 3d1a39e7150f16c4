import ArgumentParser
import CardReaderKit

struct PowerOnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power-on",
        abstract: "Power the chip card and print its ATR (answer to reset).",
        discussion: ExitStatus.help([.timedOut, .noCard, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))

    @OptionGroup var reader: ReaderOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var insertion: InsertionWaitOption

    func run() async throws {
        let insertion = insertion
        let atr = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            try await insertion.powerOn(reader)
        }
        Output.print(ResponseBody.answerToReset(atr).fields(), json: output.json)
    }
}
