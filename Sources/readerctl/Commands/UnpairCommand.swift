import ArgumentParser
import CardReaderKit
import CommandLineOutput

struct UnpairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair",
        abstract: "Delete this host's bond with a reader.",
        discussion: """
            BlueZ forgets the reader's keys and its cached services, and disconnects it. The \
            reader keeps its side until its button tells it to forget: to use it again, put \
            it in pairing mode and pair it. Do this when a reader has forgotten this host \
            (error bond-lost) or is replaced.

            \(ExitStatus.help([.linkLost, .linkNotSecure, .cancelled]))
            """)

    @OptionGroup var target: PairingTargetOptions

    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false

    func run() async throws {
        try target.refuseIfHeldByService(json: json)
        let connector = target.connector()
        let deleted = try await CommandRun.perform(json: json) { () throws(PairingError) in
            try await connector.unpair()
        }
        Output.print(["reader": .text(connector.readerDescription), "pairing": deleted ? "unpaired" : "no bond to delete"], json: json)
    }
}
