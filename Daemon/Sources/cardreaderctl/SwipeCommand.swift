import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput
import SwiftProtobuf

struct SwipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swipe", abstract: "Wait for a magnetic-stripe swipe and print its tracks, card number masked.")

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var service: ServiceOptions

    @Option(help: ArgumentHelp("Seconds to wait for the swipe, 1-65535.", valueName: "seconds"))
    var timeout = 30

    @Flag(help: "Print the card number and name unmasked (the service's reveal list must hold your user).")
    var reveal = false

    func validate() throws {
        guard (1...65535).contains(timeout) else { throw ValidationError("--timeout must be within 1…65535 seconds") }
    }

    func run() async throws {
        let request = Cardreader_V1_SwipeRequest.with {
            $0.reader = readerName.reader
            $0.timeoutSeconds = UInt32(timeout)
            $0.reveal = reveal
        }
        let swipe = try await ServiceCall.perform(service) { client in
            try await client.swipe(request, options: .deadline(seconds: timeout + 30))
        }
        var fields: [String: FieldValue] = [:]
        for (name, track, present) in [("track1", swipe.track1, swipe.hasTrack1), ("track2", swipe.track2, swipe.hasTrack2)] {
            fields[name] = present ? "parsed" : "absent"
            guard present else { continue }
            fields["\(name).pan"] = .text(track.primaryAccountNumber)
            fields["\(name).luhn"] = track.passesLuhn ? "valid" : "invalid"
            if !track.expiry.isEmpty { fields["\(name).expiry"] = .text(track.expiry) }
            if !track.serviceCode.isEmpty { fields["\(name).serviceCode"] = .text(track.serviceCode) }
            if !track.cardholderName.isEmpty { fields["\(name).name"] = .text(track.cardholderName) }
        }
        fields["track3"] = swipe.track3Present ? "present" : "absent"
        Output.print(fields, json: service.json)
    }
}
