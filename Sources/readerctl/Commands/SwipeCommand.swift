import ArgumentParser
import CardReaderKit
import CommandLineOutput

struct SwipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swipe",
        abstract: "Wait for a magnetic-stripe swipe and print its tracks, card number masked.",
        discussion: """
            Prints each track: parsed, absent, or malformed; for tracks 1 and 2 the card number \
            (first 6 and last 4 digits unless --reveal), Luhn check, expiry (YYMM) and service \
            code. A bad swipe, a timeout and Ctrl-C end with their own exit status.

            \(ExitStatus.help([.timedOut, .badSwipe, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))
            """)

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var output: OutputOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to wait for the swipe, 1-65535.", valueName: "seconds"))
    var timeout = 30

    /// The reader the options name, and how it is reached.
    var reader: ReaderOptions { ReaderOptions(readerName, link, emulator) }

    func validate() throws {
        try reader.validate()
        guard (1...65535).contains(timeout) else { throw ValidationError("--timeout must be within 1…65535 seconds") }
    }

    func run() async throws {
        let limit = Duration.seconds(timeout)
        let tracks = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            let prompt = CountdownPrompt(message: "Swipe a card…", limit: limit).start()
            defer { prompt.cancel() }
            return try await reader.readMagneticStripe(timeout: limit)
        }
        Output.print(ResponseBody.magneticStripe(tracks).fields(revealingCardData: output.reveal), json: output.json)
    }
}
