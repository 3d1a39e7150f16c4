import ArgumentParser
import CardReaderKit
import CommandLineOutput

struct PowerOnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power-on",
        abstract: "Power the chip card and print its ATR (answer to reset).",
        discussion: ExitStatus.help([.timedOut, .noCard, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var insertion: InsertionWaitOption

    /// The reader the options name, and how it is reached.
    var reader: ReaderOptions { ReaderOptions(readerName, link, emulator) }

    func validate() throws {
        try reader.validate()
    }

    func run() async throws {
        let insertion = insertion
        let atr = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            try await insertion.powerOn(reader)
        }
        Output.print(ResponseBody.answerToReset(atr).fields(), json: output.json)
    }
}
