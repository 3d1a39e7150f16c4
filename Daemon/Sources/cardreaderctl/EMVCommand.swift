import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput
import SwiftProtobuf

struct EMVCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emv", abstract: "Power the chip card and read its EMV application: card number (masked), expiry, label, AID.")

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var service: ServiceOptions

    @Option(help: ArgumentHelp("Seconds to wait for a card to be inserted, 1-255.", valueName: "seconds"))
    var wait = 30

    @Flag(help: "Print the card number and the cardholder's name unmasked (the service's reveal list must hold your user).")
    var reveal = false

    func validate() throws {
        guard (1...255).contains(wait) else { throw ValidationError("--wait must be within 1…255 seconds") }
    }

    func run() async throws {
        let request = Cardreader_V1_ReadEMVRequest.with {
            $0.reader = readerName.reader
            $0.insertionWaitSeconds = UInt32(wait)
            $0.reveal = reveal
        }
        let card = try await ServiceCall.perform(service) { client in
            try await client.readEMV(request, options: .deadline(seconds: wait + 60))
        }
        var fields: [String: FieldValue] = ["aid": .text(card.applicationIdentifier), "pan": .text(card.primaryAccountNumber)]
        if !card.applicationLabel.isEmpty { fields["applicationLabel"] = .text(card.applicationLabel) }
        if !card.expiry.isEmpty { fields["expiry"] = .text(card.expiry) }
        if card.hasPanSequenceNumber { fields["panSequenceNumber"] = .integer(Int(card.panSequenceNumber)) }
        if !card.cardholderName.isEmpty { fields["cardholderName"] = .text(card.cardholderName) }
        Output.print(fields, json: service.json)
    }
}
