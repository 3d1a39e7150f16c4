import ArgumentParser
import CardReaderKit
import CommandLineOutput

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the reader's model, serial number, firmware, battery and capabilities.",
        discussion: """
            With several --reader or --all, each reader's answer is labelled with the reader \
            (in JSON: one object per line, with "reader"); the exit status is the first \
            failing reader's. "link" says whether the link is encrypted: only a reader \
            before firmware 3.0 gives an unencrypted one, and GET INFO works on it without \
            --allow-unencrypted.

            \(ExitStatus.help([.timedOut, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))
            """)

    @OptionGroup var selection: FleetSelectionOptions
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var output: OutputOptions

    /// The readers the options name, and how they are reached.
    var reader: FleetReaderOptions { FleetReaderOptions(selection, link, emulator) }

    func validate() throws {
        try reader.validate()
        try output.checkRecording(readers: reader)
    }

    func run() async throws {
        guard reader.runsAsFleet else {
            let (info, link) = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
                (try await reader.info(), await reader.linkSecurity)
            }
            return Output.print(Self.fields(info, link: link), json: output.json)
        }
        let outcomes = try await FleetRun.perform(reader) { _, reader throws(CardReaderError) in
            (try await reader.info(), await reader.linkSecurity)
        }
        var failure: CardReaderError?
        for outcome in outcomes {
            var fields: [String: FieldValue]
            switch outcome.result {
            case .success(let (info, link)):
                fields = Self.fields(info, link: link)
            case .failure(let error):
                failure = failure ?? error
                fields = ["error": .text(error.identifier), "message": .text(error.description)]
            }
            if output.json {
                fields["reader"] = .text(outcome.label)
                Output.print(fields, json: true)
            } else {
                print("== \(outcome.label)")
                Output.print(fields, json: false)
            }
        }
        if let failure { throw ExitStatus.of(failure).exitCode }
    }

    /// GET INFO's fields, and `link`: `encrypted`, or `unencrypted` for a reader before 3.0.
    static func fields(_ info: ReaderInfo, link: LinkSecurity?) -> [String: FieldValue] {
        var fields = ResponseBody.info(info).fields()
        fields["link"] = link.map { .text("\($0)") }
        return fields
    }
}
