import ArgumentParser
import CardReaderKit
import CommandLineOutput
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair this host with a reader and keep the bond, so its link is encrypted.",
        discussion: """
            Readers from firmware 3.0 take commands only on an encrypted link, and accept a \
            new host only in pairing mode: for 120 s after they are switched on, or after \
            their button is held 3 s. A reader without a display pairs by Just Works; one \
            with a display shows six digits: give them with --passkey, or type them when \
            asked (on a terminal). A reader already bonded with this host is left alone. \
            readerctl never pairs otherwise: the other commands refuse a reader that needs \
            pairing, with exit status 12.

            \(ExitStatus.help([.linkLost, .linkNotSecure, .cancelled]))
            """)

    @OptionGroup var target: PairingTargetOptions

    @Option(help: ArgumentHelp(
        "The six digits the reader displays, for scripts; without it, a terminal is asked when the reader shows a passkey.",
        valueName: "digits"),
        transform: PasskeyArgument.init(parsing:))
    var passkey: PasskeyArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to find the reader and pair, up to 600.", valueName: "seconds"))
    var timeout = Seconds(60)

    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false

    func validate() throws {
        try OptionBounds.checkConnect(timeout: timeout, option: "--timeout")
    }

    func run() async throws {
        try target.refuseIfHeldByService(json: json)
        let connector = target.connector()
        let request = PairingRequest(timeout: timeout.duration, passkey: passkeyEntry())
        let outcome = try await CommandRun.perform(json: json) { () throws(PairingError) in
            try await connector.pair(request)
        }
        Output.print(["reader": .text(connector.readerDescription), "pairing": "\(outcome)"], json: json)
    }

    /// `--passkey`, else a prompt on the terminal, else none (a passkey-needed error).
    private func passkeyEntry() -> PasskeyEntry? {
        if let passkey { return { _ in passkey.passkey } }
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        return { prompt in await PasskeyPrompter.ask(prompt) }
    }
}

/// `--passkey`: exactly six digits.
struct PasskeyArgument: Sendable {
    let passkey: Passkey

    init(parsing text: String) throws {
        guard let passkey = Passkey(digits: text) else { throw ValidationError("a passkey is six digits, e.g. 004271") }
        self.passkey = passkey
    }
}

/// Asks the terminal for the digits a reader displays; what is typed is not echoed back
/// in any log.
enum PasskeyPrompter {
    static func ask(_ prompt: PasskeyPrompt) async -> Passkey? {
        await withCheckedContinuation { continuation in
            // Off the concurrency pool: reading the terminal blocks its thread.
            DispatchQueue.global().async {
                StandardStreams.writeError(
                    "Type the six digits \(prompt.reader) displays (within \(prompt.timeLimit)), then Enter: ")
                let line = readLine(strippingNewline: true)
                continuation.resume(returning: line.flatMap { Passkey(digits: $0.filter { !$0.isWhitespace }) })
            }
        }
    }
}
