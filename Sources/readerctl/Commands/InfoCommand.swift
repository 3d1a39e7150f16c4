import ArgumentParser
import CardReaderKit

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the reader's model, serial number, firmware, battery and capabilities.",
        discussion: """
            With several --reader or --all, each reader's answer is labelled with the reader \
            (in JSON: one object per line, with "reader"); the exit status is the first \
            failing reader's.

            \(ExitStatus.help)
            """)

    @OptionGroup var reader: ReaderOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try output.checkRecording(readers: reader)
    }

    func run() async throws {
        guard reader.namesSeveral else {
            let info = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
                try await reader.info()
            }
            return Output.print(ResponseBody.info(info).fields(), json: output.json)
        }
        let outcomes = try await FleetRun.perform(reader) { _, reader throws(CardReaderError) in
            try await reader.info()
        }
        var failure: CardReaderError?
        for outcome in outcomes {
            var fields: [String: String]
            switch outcome.result {
            case .success(let info):
                fields = ResponseBody.info(info).fields()
            case .failure(let error):
                failure = failure ?? error
                fields = ["error": error.identifier, "message": error.description]
            }
            if output.json {
                fields["reader"] = outcome.label
                Output.print(fields, json: true)
            } else {
                print("== \(outcome.label)")
                Output.print(fields, json: false)
            }
        }
        if let failure { throw ExitStatus.of(failure).exitCode }
    }
}
