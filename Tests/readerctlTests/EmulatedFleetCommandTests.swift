import Foundation
import Testing

/// `--emulated-fleet N`: fleet commands (`--all`, several `--reader`) without hardware, each
/// reader under its own name (`VPOS3356-E001`, …) in the output, JSON and errors.
@Suite struct EmulatedFleetCommandTests {
    /// Every member answers GET INFO, labelled with its name and with its own serial number.
    @Test func infoOnEveryMemberOfAFleet() async throws {
        let result = try await ReaderctlProcess.run(["info", "--emulated-fleet", "3", "--all", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        for (index, line) in lines.enumerated() {
            #expect(line.contains("\"reader\":\"VPOS3356-E00\(index + 1)\""), "\(line)")
            #expect(line.contains("\"serialNumber\":\"EMU0000\(index + 1)\""), "\(line)")
        }
    }

    /// `--reader` picks members by a prefix of their names, each labelled with its own.
    @Test func readersArePickedByName() async throws {
        let result = try await ReaderctlProcess.run(["info", "--emulated-fleet", "3", "--reader", "VPOS3356-E003", "--reader", "VPOS3356-E00"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("== VPOS3356-E003"))
        #expect(result.standardOutput.contains("== VPOS3356-E001"))
        #expect(!result.standardOutput.contains("VPOS3356-E002"))
    }

    /// `--help` is answered even beside an option the command does not have.
    @Test func helpIsAnsweredBesideAMisplacedOption() async throws {
        let result = try await ReaderctlProcess.run(["swipe", "--all", "--help"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("USAGE: readerctl swipe"))
    }

    /// Three emulated readers updated side by side, each named in the summary (the fixture
    /// image is 2.5.0; the readers run 2.4.1, before link security, hence
    /// --allow-unencrypted).
    @Test func aFirmwareUpdateOnThreeEmulatedReaders() async throws {
        let result = try await ReaderctlProcess.run([
            "update-firmware", UpdateFirmwareCommandTests.image, "--emulated-fleet", "3", "--all", "--firmware", "2.4.1",
            "--allow-unencrypted", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let outcomes = result.standardOutput.split(separator: "\n").filter { $0.contains("\"outcome\"") }
        #expect(outcomes.count == 3)
        for name in ["VPOS3356-E001", "VPOS3356-E002", "VPOS3356-E003"] {
            #expect(outcomes.contains { $0.contains("\"reader\":\"\(name)\"") && $0.contains("\"outcome\":\"updated\"") }, "\(name)")
        }
    }

    /// Each mistake gets a usage error (64) that says what to give instead.
    @Test(arguments: [
        (["info", "--emulated-fleet", "3"], "name the fleet's readers: --all"),
        (["info", "--emulated-fleet", "0", "--all"], "--emulated-fleet takes 1…32"),
        (["info", "--emulated-fleet", "2", "--emulated", "--all"], "--emulated and --emulated-fleet exclude each other"),
        (["info", "--emulated-fleet", "2", "--all", "--adapter", "hci0"], "--adapter and --value-transport apply to a Bluetooth reader only"),
        (["info", "--emulated-fleet", "2", "--all", "--record", "/tmp/x.txt"], "--record records one reader's session"),
        (["info", "--emulated-fleet", "3", "--reader", "VPOS3356-E009"], "it has VPOS3356-E001 to VPOS3356-E003"),
        (["info", "--emulated-fleet", "3", "--reader", ""], "--reader takes a name or an address"),
        (["swipe", "--reader", ""], "--reader takes a name or an address"),
        (["swipe", "--emulated-fleet", "2"], "--emulated-fleet is not an option of swipe; info, events and update-firmware have one"),
        (["swipe", "--emulated", "--all"], "--all is not an option of swipe; info, events, update-firmware and scan have one"),
    ])
    func mistakesSayWhatToDo(arguments: [String], message: String) async throws {
        let result = try await ReaderctlProcess.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
    }
}
