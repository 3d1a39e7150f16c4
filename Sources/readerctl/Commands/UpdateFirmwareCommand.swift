import ArgumentParser
import CardReaderKit
import CommandLineOutput
import FoundationEssentials

struct UpdateFirmwareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update-firmware",
        abstract: "Update readers' firmware from a .vfw image, several side by side.",
        discussion: """
            Checks the image (magic, format, length, CRC-32) before anything else, then each \
            reader (model, battery of at least 30 %), then sends it over YModem-1K; the \
            reader verifies it, restarts, and is connected to again until GET INFO reports \
            the image's version. Only an image newer than a reader's firmware is sent \
            (versions compare as dotted numbers: 3.10.0 is after 3.9.1): a reader already on \
            it is reported already-installed, an older image or versions that do not \
            compare are refused (firmware-image-older, firmware-versions-not-comparable) \
            unless --allow-older or --allow-incomparable-versions. With several --reader or --all, readers update side by \
            side (at most --max-parallel at once), each on its own line; a summary table \
            (reader, old -> new version, time, outcome) ends the run. --json prints one JSON \
            object per progress step and one per reader at the end ("outcome": "updated" or \
            the error's identifier).

            A reader whose update fails keeps its old firmware unless its outcome says \
            otherwise (firmware-reader-did-not-return, firmware-wrong-version, \
            firmware-reader-needs-pairing, firmware-installed-unconfirmed). Ctrl-C before or \
            during a transfer aborts it (CAN CAN): that reader stays on its old firmware \
            (firmware-update-cancelled). Ctrl-C after a reader verified the image stops only \
            the waiting: the reader restarts on the new firmware, and its outcome is \
            firmware-installed-unconfirmed, old -> new version (exit 130 either way).

            Exit status 0 only if every reader ended on the new version.

            \(ExitStatus.help([.linkLost, .firmwareNotUpdated, .invalidFirmwareImage, .linkNotSecure, .cancelled]))
            """)

    @Argument(help: ArgumentHelp("The firmware image, a .vfw file.", valueName: "image"), completion: Completions.firmwareImage)
    var image: String

    @OptionGroup var selection: FleetSelectionOptions
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions

    @Flag(help: "Print JSON lines for scripts instead of text.")
    var json = false

    @Flag(help: "Send an image older than a reader's firmware (a downgrade); by default only a newer one is sent.")
    var allowOlder = false

    @Flag(help: "Send the image even when its version or a reader's is not dotted numbers, so which is newer is unknown.")
    var allowIncomparableVersions = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Readers updated at once, 1-16.", valueName: "n"))
    var maxParallel = 7

    /// The readers the options name, and how they are reached.
    var reader: FleetReaderOptions { FleetReaderOptions(selection, link, emulator) }

    func validate() throws {
        try reader.validate()
        guard (1...16).contains(maxParallel) else { throw ValidationError("--max-parallel must be within 1…16") }
    }

    /// One reader's result, for the summary.
    struct Result: Sendable {
        var previousVersion: String?
        var report: FirmwareUpdateReport?
        var seconds: Double
    }

    func run() async throws {
        let firmware = try loadImage()
        let board = ProgressBoard(json: json)
        let clock = ContinuousClock()
        let options = FirmwareUpdateOptions(allowsOlderImage: allowOlder, allowsIncomparableVersions: allowIncomparableVersions)
        let outcomes = try await FleetRun.perform(reader, maxParallel: maxParallel) { label, reader throws(CardReaderError) in
            let started = clock.now
            let report = try await reader.updateFirmware(image: firmware, options: options).run { board.update(label, $0) }
            return Result(previousVersion: report.previousVersion, report: report, seconds: Self.seconds(clock.now - started))
        }
        board.finish()
        printSummary(outcomes, image: firmware)
        let failures = outcomes.compactMap { if case .failure(let error) = $0.result { error } else { nil } }
        if failures.contains(where: { ExitStatus.of($0) == .cancelled }) { throw ExitStatus.cancelled.exitCode }
        if !failures.isEmpty { throw ExitStatus.firmwareNotUpdated.exitCode }
    }

    private func loadImage() throws -> FirmwareImage {
        let bytes = try NamedFile(path: image, role: "firmware image").read(exitStatus: .invalidFirmwareImage)
        do throws(FirmwareImageError) {
            return try FirmwareImage(bytes: bytes)
        } catch {
            StandardStreams.writeError("readerctl: \(image): \(error)\n")
            if json { Output.print(["error": "firmware-image-invalid", "message": .text(error.description)], json: true) }
            throw ExitStatus.invalidFirmwareImage.exitCode
        }
    }

    private func printSummary(_ outcomes: [FleetRun.Outcome<Result>], image: FirmwareImage) {
        if json {
            for outcome in outcomes {
                var fields: [String: FieldValue] = ["reader": .text(outcome.label)]
                switch outcome.result {
                case .success(let result):
                    fields["outcome"] = result.report?.alreadyInstalled == true ? "already-installed" : "updated"
                    fields["previousVersion"] = result.previousVersion.map(FieldValue.text)
                    fields["version"] = .text(image.version)
                    fields["seconds"] = .decimal(result.seconds)
                    if let report = result.report {
                        fields["bytesPerSecond"] = .integer(Self.rate(report))
                        fields["resentBlocks"] = .integer(report.resentBlocks)
                        if report.fellBackToSmallBlocks { fields["blockSize"] = 128 }
                    }
                case .failure(let error):
                    fields["outcome"] = .text(error.identifier)
                    fields["message"] = .text(error.description)
                    if let installed = error.firmwareUpdate, installed.code == .installedUnconfirmed {
                        fields["previousVersion"] = installed.previousVersion.map(FieldValue.text)
                        fields["version"] = installed.expectedVersion.map(FieldValue.text)
                    }
                }
                Output.print(fields, json: true)
            }
            return
        }
        let rows = outcomes.map { outcome -> [String] in
            switch outcome.result {
            case .success(let result) where result.report?.alreadyInstalled == true:
                ["\(outcome.label)", image.version, "-", "already installed: nothing sent"]
            case .success(let result):
                [
                    "\(outcome.label)", "\(result.previousVersion ?? "?") → \(image.version)", "\(result.seconds) s",
                    "updated" + (result.report.map { " (\(ProgressBoard.kibibytesPerSecond(Double(Self.rate($0))))\(Self.resends($0)))" } ?? ""),
                ]
            case .failure(let error) where error.firmwareUpdate?.code == .installedUnconfirmed:
                [
                    "\(outcome.label)", "\(error.firmwareUpdate?.previousVersion ?? "?") → \(image.version)", "-",
                    "installed, not confirmed: verified the image and restarts on it (Ctrl-C came before it answered)",
                ]
            case .failure(let error):
                ["\(outcome.label)", "-", "-", "\(error.identifier): \(error)"]
            }
        }
        let header = ["reader", "version", "time", "outcome"]
        let widths = (0..<3).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        print("")
        for row in [header] + rows {
            print((0..<3).map { row[$0].padded(to: widths[$0] + 2) }.joined() + row[3])
        }
    }

    /// `, 3 blocks sent again`, and `, then in 128-byte blocks` where the sender fell back.
    private static func resends(_ report: FirmwareUpdateReport) -> String {
        guard report.resentBlocks > 0 else { return "" }
        let blocks = report.resentBlocks == 1 ? "1 block" : "\(report.resentBlocks) blocks"
        return ", \(blocks) sent again" + (report.fellBackToSmallBlocks ? ", then in 128-byte blocks" : "")
    }

    /// The transfer's rate: image bytes over the YModem transfer's time.
    private static func rate(_ report: FirmwareUpdateReport) -> Int {
        let seconds = Double(report.transferDuration / .milliseconds(1)) / 1000
        return seconds > 0 ? Int(Double(report.bytes) / seconds) : 0
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(Int(Double(duration / .milliseconds(1)) / 100)) / 10
    }
}
