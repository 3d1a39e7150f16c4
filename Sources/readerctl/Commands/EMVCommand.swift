import ArgumentParser
import CardReaderKit
import CommandLineOutput

struct EMVCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emv",
        abstract: "Power the chip card and read its EMV application: card number (masked), expiry, label, AID.",
        discussion: """
            Runs SELECT PPSE, selects the highest-priority application, GET PROCESSING \
            OPTIONS with the card's PDOL filled, and READ RECORD for every record the AFL \
            names. The cardholder name is shown only with --reveal. Without a card in the \
            slot, it waits --wait seconds for one. --tlv also prints every data object read \
            (the application's FCI, the processing options, every record) by tag name, values \
            decoded, card data masked by tag.

            \(ExitStatus.help([.timedOut, .noCard, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))
            """)

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var insertion: InsertionWaitOption

    @Flag(help: "Also print every data object read, by tag name, card data masked (unless --reveal).")
    var tlv = false

    /// The reader the options name, and how it is reached.
    var reader: ReaderOptions { ReaderOptions(readerName, link, emulator) }

    func validate() throws {
        try reader.validate()
    }

    func run() async throws {
        let insertion = insertion
        let card = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            _ = try await insertion.powerOn(reader)
            let card = try await reader.readEMVCard()
            try await reader.powerOffCard()
            return card
        }
        var fields: [String: FieldValue] = [
            "aid": .text(card.applicationIdentifierHex),
            "pan": .text(output.reveal ? card.primaryAccountNumber.revealed() : card.primaryAccountNumber.masked),
            "luhn": card.primaryAccountNumber.passesLuhn ? "valid" : "invalid",
            "records": .integer(card.records.count),
        ]
        fields["applicationLabel"] = card.applicationLabel.map(FieldValue.text)
        fields["expiry"] = card.expiry.map { .text($0.yymm) }
        fields["panSequenceNumber"] = card.panSequenceNumber.map { .integer(Int($0)) }
        if output.reveal { fields["cardholderName"] = card.cardholderName.map { .text($0.revealed()) } }
        var dataObjects: [String: [EMVDataElementDescription]] = [:]
        if tlv {
            let renderer = EMVDataRenderer(revealingCardData: output.reveal)
            dataObjects["fileControlInformation"] = renderer.describe(card.fileControlInformation)
            dataObjects["processingOptions"] = renderer.describe(card.processingOptions)
            dataObjects["records"] = renderer.describe(card.records)
        }
        Output.print(fields, dataObjects: dataObjects, json: output.json)
    }
}
