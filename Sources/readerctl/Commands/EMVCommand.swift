import ArgumentParser
import CardReaderKit

struct EMVCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emv",
        abstract: "Power the chip card and read its EMV application: card number (masked), expiry, label, AID.",
        discussion: """
            Runs SELECT PPSE, selects the highest-priority application, GET PROCESSING \
            OPTIONS with the card's PDOL filled, and READ RECORD for every record the AFL \
            names. The cardholder name is shown only with --reveal.

            \(ExitStatus.help)
            """)

    @OptionGroup var reader: ReaderOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var insertion: InsertionWaitOption

    func run() async throws {
        let wait = insertion.duration
        let card = try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            _ = try await reader.powerOnCard(waitingForInsertion: wait)
            let card = try await reader.readEMVCard()
            try await reader.powerOffCard()
            return card
        }
        var fields = [
            "aid": card.applicationIdentifierHex,
            "pan": output.reveal ? card.primaryAccountNumber.revealed() : card.primaryAccountNumber.masked,
            "luhn": card.primaryAccountNumber.passesLuhn ? "valid" : "invalid",
            "records": "\(card.records.count)",
        ]
        fields["applicationLabel"] = card.applicationLabel
        fields["expiry"] = card.expiry?.yymm
        fields["panSequenceNumber"] = card.panSequenceNumber.map { "\($0)" }
        if output.reveal { fields["cardholderName"] = card.cardholderName?.revealed() }
        Output.print(fields, json: output.json)
    }
}
