import Foundation
import Testing

/// `--record FILE`: the session in the recording format, written only for published test
/// cards unless `--reveal`.
@Suite struct RecordOptionTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("readerctl-record-\(getpid())-\(name)").path
    }

    /// A recorded EMV read decodes to the same read: the card's FCI, records and masked PAN.
    @Test func aRecordedSessionDecodesToTheSameRead() async throws {
        let path = temporaryPath("emv.txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try await ReaderctlProcess.run(["emv", "--emulated", "--record", path])
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardError.contains("recorded"))
        let decoded = try await ReaderctlProcess.run(["decode", path])
        #expect(decoded.status == 0)
        for line in [
            "apdu.command: SELECT by DF name", "apdu.command: GET PROCESSING OPTIONS",
            "apdu.command: READ RECORD SFI 1 record 2",
            "5A Application Primary Account Number (PAN): 411111******1111 (masked)",
        ] {
            #expect(decoded.standardOutput.contains(line), "\(line)")
        }
        #expect(!decoded.standardOutput.contains("4111111111111111"))

        // In the file, every command comes before its answer (the emulated reader answers
        // before the write returns).
        let json = try await ReaderctlProcess.run(["decode", "--json", path])
        let records = try json.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let sequence = records.compactMap { record -> String? in
            guard let kind = record["kind"] as? String, kind != "event" else { return nil }
            return "\(kind) \(record["code"] as? String ?? "")"
        }
        #expect(sequence.count > 2 && sequence.count % 2 == 0)
        for pair in stride(from: 0, to: sequence.count - 1, by: 2) {
            #expect(sequence[pair].hasPrefix("command"), "\(sequence)")
            #expect(sequence[pair + 1] == sequence[pair].replacingOccurrences(of: "command", with: "response"))
        }
    }

    /// A card outside the published test lists (a Luhn-valid 4545 4512 3456 7898) is not
    /// written without --reveal, and the refusal names it masked.
    @Test func aCardThatIsNotATestCardIsRecordedOnlyWithReveal() async throws {
        let card = temporaryPath("card.json")
        let path = temporaryPath("real.txt")
        defer {
            try? FileManager.default.removeItem(atPath: card)
            try? FileManager.default.removeItem(atPath: path)
        }
        let profile = try String(contentsOfFile: "Fixtures/cards/visa-test.json", encoding: .utf8)
            .replacingOccurrences(of: "4111111111111111", with: "4545451234567898")
        try profile.write(toFile: card, atomically: true, encoding: .utf8)

        let refused = try await ReaderctlProcess.run(["swipe", "--emulated", "--card", card, "--record", path])
        #expect(refused.status == 11)
        // The swipe the user asked for is printed, masked, all the same.
        #expect(refused.standardOutput.contains("track2.pan"), "\(refused.standardOutput)")
        #expect(refused.standardOutput.contains("454545******7898"))
        #expect(refused.standardError.contains("454545******7898"))
        #expect(!refused.standardError.contains("4545451234567898"))
        #expect(!FileManager.default.fileExists(atPath: path))

        let revealed = try await ReaderctlProcess.run(["swipe", "--emulated", "--card", card, "--record", path, "--reveal"])
        #expect(revealed.status == 0)
        #expect(FileManager.default.fileExists(atPath: path))
        // Readable by its owner only: it holds the card as the reader sent it.
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    /// A PIN block (VERIFY) is never written, not even with --reveal.
    @Test func aSessionWithAPINBlockIsNeverRecorded() async throws {
        let path = temporaryPath("verify.txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await ReaderctlProcess.run([
            "apdu", "--emulated", "--record", path, "--reveal", "00A4040007A000000003101000", "0020008008241234FFFFFFFFFF",
        ])
        #expect(result.status == 11)
        #expect(result.standardError.contains("PIN data"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A recording that cannot be written is found out before the reader is touched (no
    /// prompt to swipe), in one line naming the path and what to do, exit status 2.
    @Test(arguments: [
        ("/nonexistent-cardreaderkit/run.txt", "its directory /nonexistent-cardreaderkit does not exist", "mkdir -p /nonexistent-cardreaderkit"),
        ("/", "it is a directory", "name a file in it"),
    ])
    func aRecordingThatCannotBeWrittenStopsTheCommandBeforeTheReader(path: String, problem: String, fix: String) async throws {
        let result = try await ReaderctlProcess.run(["swipe", "--emulated", "--record", path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("readerctl: cannot write the recording to \(path): \(problem)"), "\(result.standardError)")
        #expect(result.standardError.contains("fix: ") && result.standardError.contains(fix))
        #expect(!result.standardError.contains("Swipe a card"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func recordTakesOneReader() async throws {
        let result = try await ReaderctlProcess.run(["info", "--reader", "A", "--reader", "B", "--record", temporaryPath("x")])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--record records one reader's session"))
    }
}
