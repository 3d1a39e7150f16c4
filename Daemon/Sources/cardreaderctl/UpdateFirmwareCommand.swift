import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput
import FoundationEssentials
import GRPCCore
import SwiftProtobuf

struct UpdateFirmwareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update-firmware", abstract: "Update a reader's firmware from a .vfw image, through the service.")

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var service: ServiceOptions

    @Argument(help: ArgumentHelp("The firmware image (.vfw).", valueName: "image"))
    var image: String

    @Flag(help: "Install an image older than the reader's firmware.")
    var allowOlder = false

    func run() async throws {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(filePath: image))
        } catch {
            ServiceCall.report("cannot read \(image): \(error)", fix: nil, identifier: "unreadable-input", json: service.json)
            throw ExitCode(ExitStatus.unreadableInput.rawValue)
        }
        let request = Cardreader_V1_UpdateFirmwareRequest.with {
            $0.reader = readerName.reader
            $0.image = bytes
            $0.allowOlder = allowOlder
        }
        let (json, reader) = (service.json, readerName.reader)
        try await ServiceCall.perform(service) { client in
            try await client.updateFirmware(request) { response in
                var phase = ""
                for try await progress in response.messages where progress.phase != phase || json {
                    phase = progress.phase
                    var fields: [String: FieldValue] = [
                        "reader": .text(reader), "phase": .text(progress.phase), "bytesSent": .integer(Int(progress.bytesSent)),
                        "bytesTotal": .integer(Int(progress.bytesTotal)),
                    ]
                    if progress.hasResult {
                        fields["previousVersion"] = .text(progress.result.previousVersion)
                        fields["version"] = .text(progress.result.version)
                        fields["outcome"] = progress.result.alreadyInstalled ? "already-installed" : "updated"
                    }
                    Output.print(fields, json: json)
                    if !json { print() }
                }
            }
        }
    }
}
