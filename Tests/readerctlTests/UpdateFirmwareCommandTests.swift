import Foundation
import Testing

/// `readerctl update-firmware` against the emulated reader (firmware 2.4.1) with the
/// fixture image `Fixtures/firmware/vpos3356-2.5.0.vfw`: the outcome in the summary and
/// the documented exit status (0 updated, 8 not updated, 9 unusable image).
@Suite struct UpdateFirmwareCommandTests {
    static let image = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/firmware/vpos3356-2.5.0.vfw").path

    @Test func aGoodUpdateEndsOnTheNewVersion() async throws {
        let result = try await ReaderctlProcess.run(["update-firmware", Self.image, "--emulated", "--firmware", "2.4.1", "--allow-unencrypted"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("2.4.1 → 2.5.0"))
        #expect(result.standardOutput.contains("updated"))
    }

    @Test(arguments: [
        ("firmware-drop-at=2", "firmware-link-lost"),
        ("firmware-corrupt", "firmware-verification-failed"),
        ("firmware-cancel-at=1", "firmware-aborted-by-reader"),
        ("battery=20", "firmware-battery-too-low"),
    ])
    func aFailedUpdateNamesItsCauseAndExits8(scenario: String, outcome: String) async throws {
        let result = try await ReaderctlProcess.run(["update-firmware", Self.image, "--emulated", "--firmware", "2.4.1", "--allow-unencrypted", "--scenario", scenario, "--json"])
        #expect(result.status == 8, "\(scenario): \(result.standardError)")
        let last = result.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains("\"outcome\":\"\(outcome)\""), "\(scenario): \(last)")
    }

    @Test func aDamagedImageIsRefusedBeforeAnyReaderIsTouched() async throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.image))
        bytes[100] ^= 0x01
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID()).vfw")
        try bytes.write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let result = try await ReaderctlProcess.run(["update-firmware", path.path, "--emulated", "--firmware", "2.4.1", "--allow-unencrypted"])
        #expect(result.status == 9)
        #expect(result.standardError.contains("the firmware image is damaged: its CRC-32 says"))
    }

    /// An image that cannot be read: one line naming the path and why, a fix, exit 9, and
    /// no reader touched (no Foundation error dump).
    @Test func anImageThatCannotBeReadSaysWhyInOneLine() async throws {
        let missing = try await ReaderctlProcess.run(["update-firmware", "/nonexistent.vfw", "--emulated"])
        #expect(missing.status == 9)
        #expect(missing.standardError.hasPrefix("readerctl: cannot read the firmware image /nonexistent.vfw: no such file\n  fix: "),
            "\(missing.standardError)")
        #expect(!missing.standardError.contains("CocoaError") && !missing.standardError.contains("NSFilePath"))

        // A folder: the fix names an image in it.
        let folder = URL(fileURLWithPath: Self.image).deletingLastPathComponent().path
        let directory = try await ReaderctlProcess.run(["update-firmware", folder, "--emulated"])
        #expect(directory.status == 9)
        #expect(directory.standardError.contains("cannot read the firmware image \(folder): it is a directory"))
        #expect(directory.standardError.contains("fix: name a file in it, e.g. \(folder)/vpos3356-"))
    }

    /// `--reader` repeats only where a command takes several readers; elsewhere the second
    /// is not kept silently, the last one winning.
    @Test(arguments: [["swipe"], ["unpair"], ["gatt"]])
    func aCommandForOneReaderTakesOneReader(command: [String]) async throws {
        let result = try await ReaderctlProcess.run(command + ["--reader", "A", "--reader", "B"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--reader is given twice"), "\(result.standardError)")
    }

    /// Ctrl-C during the transfer aborts it (`CAN CAN`): exit 130, the summary says the
    /// update was cancelled and the reader kept its old firmware. The signal goes once the
    /// first of the image's three blocks is acknowledged; the reader acknowledges each
    /// 400 ms late, so the transfer is still under way.
    @Test func ctrlCAbortsTheTransfer() async throws {
        let run = try InteractiveReaderctl(
            [
                "update-firmware", Self.image, "--emulated", "--firmware", "2.4.1", "--allow-unencrypted", "--scenario",
                "firmware-slow-ack=400", "--verbose",
            ],
            .signal(SIGINT, whenStandardOutputShows: "transferring  33%"))
        #expect(await run.waitForExit(within: 10) == 130)
        #expect(run.signalled)
        #expect(run.standardError.contains("the update was cancelled at block"), "\(run.standardError)")
        #expect(run.standardOutput.contains("cancelled"), "\(run.standardOutput)")
    }

    /// Ctrl-C once the reader has verified the image: the reader restarts on it, and the
    /// operator is told so (old → new version, installed and not confirmed), never that the
    /// update was cancelled. The reader here never comes back, so the run is still waiting.
    @Test func ctrlCAfterVerificationReportsTheInstalledVersion() async throws {
        let run = try InteractiveReaderctl(
            [
                "update-firmware", Self.image, "--emulated", "--firmware", "2.4.1", "--allow-unencrypted", "--scenario",
                "firmware-no-restart",
            ],
            .signal(SIGINT, whenStandardOutputShows: "reconnecting"))
        #expect(await run.waitForExit(within: 10) == 130)
        #expect(run.signalled)
        #expect(run.standardOutput.contains("2.4.1 → 2.5.0"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("installed, not confirmed"), "\(run.standardOutput)")
        #expect(!run.standardOutput.contains("cancelled"), "\(run.standardOutput)")
    }
}
