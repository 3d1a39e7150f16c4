import ArgumentParser
import CardReaderKit
import CommandLineOutput

struct APDUCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apdu",
        abstract: "Power the chip card, send command APDUs in order, and print each response.",
        discussion: """
            Each APDU is hex, spaces optional inside quotes, e.g. \
            '00A404000E325041592E5359532E444446303100' (SELECT PPSE). By default a 61xx \
            answer is followed by GET RESPONSE and a 6Cxx answer is re-sent with the right Le, \
            as a T=0 terminal does; --raw shows the card's answers as they come. Each command \
            and status word is named; response data that is BER-TLV is shown by tag name with \
            values decoded and card data (card number, track data, name, discretionary data) \
            masked by tag; data that is not BER-TLV, and unknown tags outside an FCI, are shown \
            only with --reveal. Without a card in the slot, it waits --wait seconds for one.

            \(ExitStatus.help([.timedOut, .noCard, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))
            """)

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: ArgumentHelp("Command APDUs, in hex.", valueName: "hex"))
    var apdus: [APDUArgument]

    @Flag(help: "Do not follow 61xx with GET RESPONSE nor re-send on 6Cxx.")
    var raw = false

    @OptionGroup var insertion: InsertionWaitOption

    /// The reader the options name, and how it is reached.
    var reader: ReaderOptions { ReaderOptions(readerName, link, emulator) }

    func validate() throws {
        try reader.validate()
        _ = try commands()
    }

    func run() async throws {
        let commands = try commands()
        let options = raw ? APDUExchangeOptions.raw : APDUExchangeOptions()
        let insertion = insertion
        let responses = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            _ = try await insertion.powerOn(reader)
            var responses: [ResponseAPDU] = []
            for command in commands {
                responses.append(try await reader.transmit(command, options: options))
            }
            try await reader.powerOffCard()
            return responses
        }
        var session = EMVSessionContext()
        for (index, (command, response)) in zip(commands, responses).enumerated() {
            var fields = ReaderCommand.iccAPDU(command).fields(revealingCardData: output.reveal)
                .reduce(into: [String: FieldValue]()) { $0["command." + $1.key.replacing("apdu.", with: "")] = $1.value }
            for (key, value) in ResponseBody.apdu(response).fields(revealingCardData: output.reveal) {
                fields["response." + key.replacing("apdu.", with: "")] = value
            }
            var dataObjects: [String: [EMVDataElementDescription]] = [:]
            dataObjects["command.dataObjects"] = session.describeData(of: command, revealingCardData: output.reveal)
            dataObjects["response.dataObjects"] = response.describedData(revealingCardData: output.reveal)
            session.observe(response)
            if !output.json && index > 0 { print() }
            Output.print(fields, dataObjects: dataObjects, json: output.json)
        }
    }

    /// The parsed APDUs; an error names the APDU by position, never by its bytes (they
    /// can be card data).
    private func commands() throws -> [CommandAPDU] {
        try apdus.enumerated().map { position, argument in
            switch argument.parsed {
            case .success(let command): return command
            case .failure(let problem): throw ValidationError("APDU \(position + 1) \(problem)")
            }
        }
    }
}

/// A command APDU in hex, parsed once, when the argument is. It never fails parsing
/// itself, because ArgumentParser's message would quote the argument, and an APDU can hold
/// card data: ``APDUCommand`` reports the problem by position instead.
struct APDUArgument: ExpressibleByArgument, Sendable {
    let parsed: Result<CommandAPDU, Problem>

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    init(argument: String) {
        do {
            let bytes = try HexText.bytes(argument)
            do {
                parsed = .success(try CommandAPDU(parsing: bytes))
            } catch {
                parsed = .failure(Problem(description: "is not a command APDU: \(error)"))
            }
        } catch {
            parsed = .failure(Problem(description: "is not hex bytes: \(error)"))
        }
    }
}
