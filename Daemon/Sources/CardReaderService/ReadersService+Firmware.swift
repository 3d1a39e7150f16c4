import CardReaderContract
import CardReaderKit
import FoundationEssentials
import GRPCCore
import GRPCProtobuf
import SwiftProtobuf

/// Firmware updates: progress as it goes, the result last.
extension ReadersService {
    package func updateFirmware(
        request: Cardreader_V1_UpdateFirmwareRequest, response: RPCWriter<Cardreader_V1_UpdateFirmwareProgress>,
        context: ServerContext
    ) async throws {
        let (caller, deadline) = try caller(of: context)
        let reader = try readers.named(request.reader)
        let image: FirmwareImage
        do throws(FirmwareImageError) {
            image = try FirmwareImage(bytes: [UInt8](request.image))
        } catch {
            throw ServiceFailure.invalidArgument("the image is not a firmware image the reader takes: \(error)", reader: reader.name)
        }
        let options = FirmwareUpdateOptions(
            allowsOlderImage: request.allowOlder, allowsIncomparableVersions: request.allowIncomparableVersions,
            readerHasNoBattery: request.readerHasNoBattery)
        // Progress goes to the client as it comes, never holding the update up: a client
        // that reads slowly sees the newest.
        let (progress, progressInput) = AsyncStream.makeStream(
            of: Cardreader_V1_UpdateFirmwareProgress.self, bufferingPolicy: .bufferingNewest(16))
        let writer = Task {
            for await item in progress { try await response.write(item) }
        }
        let report: FirmwareUpdateReport
        do throws(GoogleRPCStatus) {
            report = try await leased(reader, leaseID: "", caller: caller, command: "UpdateFirmware") { _ throws(GoogleRPCStatus) in
                try await perform(on: reader, until: deadline) { reader throws(CardReaderError) in
                    try await reader.updateFirmware(image: image, options: options).run {
                        if $0.phase != .completed { progressInput.yield(Cardreader_V1_UpdateFirmwareProgress($0)) }
                    }
                }
            }
        } catch {
            progressInput.finish()
            _ = try? await writer.value
            throw error
        }
        progressInput.finish()
        try await writer.value
        try await response.write(.with {
            $0.phase = FirmwareUpdateProgress.Phase.completed.rawValue
            $0.bytesSent = UInt64(report.bytes)
            $0.bytesTotal = UInt64(image.bytes.count)
            $0.result = .with {
                $0.previousVersion = report.previousVersion ?? ""
                $0.version = report.version
                $0.alreadyInstalled = report.alreadyInstalled
                $0.resentBlocks = UInt32(clamping: report.resentBlocks)
            }
        })
    }
}
