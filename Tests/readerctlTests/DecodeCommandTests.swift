import Foundation
import Testing

/// `readerctl decode`, run as a subprocess on the recordings in Fixtures/packets.
/// The test card is the documentation's 4111 1111 1111 1111, DOE/JOHN, expiry 2512.
@Suite struct DecodeCommandTests {
    @Test func documentedSwipeInSixNotificationsPrintsBothTracksMasked() async throws {
        let result = try await ReaderctlProcess.run(["decode", "Fixtures/packets/swipe-mtu23.txt"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("READ MAGNETIC STRIPE, status 00 success"))
        #expect(result.standardOutput.contains("track1.pan: 411111******1111"))
        #expect(result.standardOutput.contains("track2.pan: 411111******1111"))
        #expect(result.standardOutput.contains("track1.expiry: 2512"))
        #expect(!result.standardOutput.contains("4111111111111111"))
        #expect(!result.standardOutput.contains("DOE/JOHN"))
    }

    /// A recording named by a path that is a pipe — a shell's process substitution,
    /// `readerctl decode <(ssh lane3 cat session.txt)`, here the test's pipe as
    /// `/dev/stdin` — is read to its end: a pipe has no size to trust.
    @Test func aRecordingFromAPipeIsReadToItsEnd() async throws {
        let recording = try Data(contentsOf: ReaderctlProcess.repositoryRoot.appendingPathComponent("Fixtures/packets/swipe-mtu23.txt"))
        let result = try await ReaderctlProcess.run(["decode", "/dev/stdin"], standardInput: recording)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("READ MAGNETIC STRIPE, status 00 success"))
        #expect(result.standardOutput.contains("track2.pan: 411111******1111"))
    }

    @Test func revealShowsCardData() async throws {
        let result = try await ReaderctlProcess.run(["decode", "--reveal", "Fixtures/packets/swipe-mtu23.txt"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("track1.pan: 4111111111111111"))
        #expect(result.standardOutput.contains("track1.name: DOE/JOHN"))
    }

    @Test func jsonPrintsOneObjectPerRecord() async throws {
        let result = try await ReaderctlProcess.run(["decode", "--json", "Fixtures/packets/damaged-noise-mtu23.txt"])
        #expect(result.status == 1)
        let objects = try result.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // GET INFO, noise, its answer, noise, card inserted, trailing noise (Fixtures' expected file).
        #expect(objects.map { $0["type"] as? String } == ["frame", "damage", "frame", "damage", "frame", "damage"])
        #expect(objects.allSatisfy { $0["source"] as? String == "Fixtures/packets/damaged-noise-mtu23.txt" })
        #expect(objects[1]["reason"] as? String == "noise")
    }

    @Test func damageIsPrintedWithOffsetAndReasonAndExitsOne() async throws {
        let result = try await ReaderctlProcess.run(["decode", "Fixtures/packets/damaged-bad-crc-mtu23.txt"])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("DAMAGE at offset 0, 7 bytes: checksum mismatch"))
        #expect(result.standardOutput.contains("command C0 02 CANCEL"))
    }

    @Test func standardInputIsReadForDash() async throws {
        let recording = "> 02 C0 01 00 00 00 54\n< 02 E0 01 00 00 37 1A\n"
        let result = try await ReaderctlProcess.run(["decode", "-"], standardInput: Data(recording.utf8))
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("command C0 01 GET INFO"))
        #expect(result.standardOutput.contains("event E0 01 card inserted"))
    }

    @Test func unreadableInputExitsTwoAndNamesTheProblem() async throws {
        let missing = try await ReaderctlProcess.run(["decode", "no/such/recording.txt"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("no/such/recording.txt: no such file"))

        // A malformed line ends the input, after what the lines before it held is printed.
        let recording = "> 02 C0 01 00 00 00 54\nC0 01\n"
        let malformed = try await ReaderctlProcess.run(["decode", "-"], standardInput: Data(recording.utf8))
        #expect(malformed.status == 2)
        #expect(malformed.standardOutput.contains("command C0 01 GET INFO"))
        #expect(malformed.standardError.contains("line 2: no direction mark"))
        // … and what a recording is, for someone who named another file.
        #expect(malformed.standardError.contains("fix: decode reads a recording: one packet per line, '> HEX'"))
        #expect(malformed.standardError.contains("Docs/decoding-recordings.md"))
    }

    /// `--expect`: a recording against its golden file (the convention of GoldenRecords, as
    /// the golden tests use it); decode's own --json output is a golden file that matches.
    @Test func expectComparesARecordingWithItsGoldenFile() async throws {
        let recording = "Fixtures/packets/cancel-swipe-mtu23.txt"
        let matching = try await ReaderctlProcess.run(["decode", recording, "--expect", "Fixtures/packets/cancel-swipe-mtu23.expected.jsonl"])
        #expect(matching.status == 0, "\(matching.standardOutput)\(matching.standardError)")
        #expect(matching.standardOutput.contains("matches") && matching.standardOutput.contains("4 records"))

        let other = try await ReaderctlProcess.run(["decode", recording, "--expect", "Fixtures/packets/get-info-mtu23.expected.jsonl"])
        #expect(other.status == 1)
        #expect(other.standardOutput.contains("record 1: "))
        #expect(other.standardError.contains("differs from Fixtures/packets/get-info-mtu23.expected.jsonl"))

        let golden = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: golden) }
        let json = try await ReaderctlProcess.run(["decode", "--json", recording])
        try json.standardOutput.write(toFile: golden, atomically: true, encoding: .utf8)
        #expect(try await ReaderctlProcess.run(["decode", recording, "--expect", golden]).status == 0)

        let missing = try await ReaderctlProcess.run(["decode", recording, "--expect", "/nonexistent.expected.jsonl"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("cannot read the expected file /nonexistent.expected.jsonl: no such file"))
    }

    @Test func helpDocumentsTheExitStatus() async throws {
        let result = try await ReaderctlProcess.run(["decode", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("1  damage or an undecodable frame was found"))
        #expect(result.standardOutput.contains("--reveal"))
    }

    /// A btmon capture of a session over a real bluetoothd (Fixtures/captures).
    @Test func btsnoopCapturesDecodeLikeRecordings() async throws {
        let result = try await ReaderctlProcess.run(["decode", "Fixtures/captures/bluez-session.btsnoop"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("response C1 07 READ MAGNETIC STRIPE, status 00 success"))
        #expect(result.standardOutput.contains("track2.pan: 411111******1111"))
        #expect(!result.standardOutput.contains("4111111111111111"))
    }

    /// A hostile line: 1 MB of 02, every byte a false start. It decodes to one damage record
    /// (1,000,000 bytes, counted from the input), streamed, not one record per byte.
    @Test func aMegabyteOfFalseStartsIsOneDamageRecord() async throws {
        let line = "< " + String(repeating: "02", count: 1_000_000) + "\n"
        // A debug readerctl takes 5 s over this alone and 26–32 s in a whole suite run with
        // both cores busy (`Scripts/repeat-tests --load always --long`): five times that.
        let result = try await ReaderctlProcess.run(["decode", "--json", "-"], standardInput: Data(line.utf8), timeout: 160)
        #expect(result.status == 1)
        let records = result.standardOutput.split(separator: "\n")
        #expect(records.count == 1)
        let record = try #require(try JSONSerialization.jsonObject(with: Data((records.first ?? "").utf8)) as? [String: Any])
        #expect(record["length"] as? Int == 1_000_000)
        #expect(record["reason"] as? String == "checksum-mismatch")
    }
}

/// A whole EMV read, recorded with `readerctl emv --emulated --record` (Fixtures/sessions):
/// tags by name, card data masked by tag. Expected names from EMV Book 3 Annex A; values
/// from the card profile (Fixtures/cards/visa-test.json).
@Suite struct DecodeEMVSessionTests {
    @Test func anEMVSessionShowsTagsByNameWithCardDataMasked() async throws {
        let result = try await ReaderctlProcess.run(["decode", "Fixtures/sessions/emv-visa-test-mtu23.txt"])
        #expect(result.status == 0)
        for line in [
            "4F Application Identifier (AID) - card: A0000000031010 (Visa credit or debit)",
            "50 Application Label: VISA CREDIT",
            "9F38 Processing Options Data Object List (PDOL): 9F02 06, 9F1A 02, 5F2A 02, 9F37 04",
            "94 Application File Locator (AFL): 08 01 02 00 10 01 01 00",
            // The GPO's terminal data, read by the PDOL above it.
            "9F1A Terminal Country Code: 840 (US, United States)", "5F2A Transaction Currency Code: 840 (USD)",
            "57 Track 2 Equivalent Data: 411111******1111, expiry 2512, service code 201 (masked)",
            "5F20 Cardholder Name: 8 bytes, hidden",
            "5F28 Issuer Country Code: 840 (US, United States)",
            "- Enciphered PIN verified online, If terminal supports the CVM; next rule if unsuccessful",
        ] {
            #expect(result.standardOutput.contains(line), "\(line)")
        }
        for secret in ["4111111111111111", "DOE/JOHN", "44 4F 45 2F"] {
            #expect(!result.standardOutput.contains(secret), "\(secret)")
        }
    }

    @Test func revealShowsTheCardDataOfTheSession() async throws {
        let result = try await ReaderctlProcess.run(["decode", "--reveal", "Fixtures/sessions/emv-mastercard-test-mtu247.txt"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("5A Application Primary Account Number (PAN): 5555555555554444"))
    }

    /// The nested JSON structure the README documents.
    @Test func jsonNestsDataObjects() async throws {
        let result = try await ReaderctlProcess.run(["decode", "--json", "Fixtures/sessions/emv-visa-test-mtu23.txt"])
        let records = try result.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let withPAN = records.compactMap { $0["dataObjects"] as? [[String: Any]] }.compactMap { objects in
            (objects.first?["children"] as? [[String: Any]])?.first { $0["tag"] as? String == "5A" }
        }
        let pan = try #require(withPAN.first)
        #expect(pan["value"] as? String == "411111******1111")
        #expect(pan["redaction"] as? String == "masked")
        #expect(pan["hex"] == nil)
        #expect(pan["name"] as? String == "Application Primary Account Number (PAN)")
    }
}
