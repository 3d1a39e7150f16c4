import Foundation
import Testing

/// `readerctl decode`, run as a subprocess on the recordings in Fixtures/packets.
/// The test card is the documentation's 4111 1111 1111 1111, DOE/JOHN, expiry 2512.
@Suite struct DecodeCommandTests {
    @Test func documentedSwipeInSixNotificationsPrintsBothTracksMasked() throws {
        let result = try ReaderctlProcess.run(["decode", "Fixtures/packets/swipe-mtu23.txt"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("READ MAGNETIC STRIPE, status 00 success"))
        #expect(result.standardOutput.contains("track1.pan: 411111******1111"))
        #expect(result.standardOutput.contains("track2.pan: 411111******1111"))
        #expect(result.standardOutput.contains("track1.expiry: 2512"))
        #expect(!result.standardOutput.contains("4111111111111111"))
        #expect(!result.standardOutput.contains("DOE/JOHN"))
    }

    @Test func revealShowsCardData() throws {
        let result = try ReaderctlProcess.run(["decode", "--reveal", "Fixtures/packets/swipe-mtu23.txt"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("track1.pan: 4111111111111111"))
        #expect(result.standardOutput.contains("track1.name: DOE/JOHN"))
    }

    @Test func jsonPrintsOneObjectPerRecord() throws {
        let result = try ReaderctlProcess.run(["decode", "--json", "Fixtures/packets/damaged-noise-mtu23.txt"])
        #expect(result.status == 1)
        let objects = try result.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // GET INFO, noise, its answer, noise, card inserted, trailing noise (Fixtures' expected file).
        #expect(objects.map { $0["type"] as? String } == ["frame", "damage", "frame", "damage", "frame", "damage"])
        #expect(objects.allSatisfy { $0["source"] as? String == "Fixtures/packets/damaged-noise-mtu23.txt" })
        #expect(objects[1]["reason"] as? String == "noise")
    }

    @Test func damageIsPrintedWithOffsetAndReasonAndExitsOne() throws {
        let result = try ReaderctlProcess.run(["decode", "Fixtures/packets/damaged-bad-crc-mtu23.txt"])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("DAMAGE at offset 0, 7 bytes: checksum mismatch"))
        #expect(result.standardOutput.contains("command C0 02 CANCEL"))
    }

    @Test func standardInputIsReadForDash() throws {
        let recording = "> 02 C0 01 00 00 00 54\n< 02 E0 01 00 00 37 1A\n"
        let result = try ReaderctlProcess.run(["decode", "-"], standardInput: Data(recording.utf8))
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("command C0 01 GET INFO"))
        #expect(result.standardOutput.contains("event E0 01 card inserted"))
    }

    @Test func unreadableInputExitsTwoAndNamesTheProblem() throws {
        let missing = try ReaderctlProcess.run(["decode", "no/such/recording.txt"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("no/such/recording.txt: no such file"))

        // A malformed line ends the input, after what the lines before it held is printed.
        let recording = "> 02 C0 01 00 00 00 54\nC0 01\n"
        let malformed = try ReaderctlProcess.run(["decode", "-"], standardInput: Data(recording.utf8))
        #expect(malformed.status == 2)
        #expect(malformed.standardOutput.contains("command C0 01 GET INFO"))
        #expect(malformed.standardError.contains("line 2: no direction mark"))
    }

    @Test func helpDocumentsTheExitStatus() throws {
        let result = try ReaderctlProcess.run(["decode", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("1  damage or an undecodable frame was found"))
        #expect(result.standardOutput.contains("--reveal"))
    }

    /// A btmon capture of a session over a real bluetoothd (Fixtures/captures).
    @Test func btsnoopCapturesDecodeLikeRecordings() throws {
        let result = try ReaderctlProcess.run(["decode", "Fixtures/captures/bluez-session.btsnoop"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("response C1 07 READ MAGNETIC STRIPE, status 00 success"))
        #expect(result.standardOutput.contains("track2.pan: 411111******1111"))
        #expect(!result.standardOutput.contains("4111111111111111"))
    }

    /// A hostile line: 1 MB of 02, every byte a false start. It decodes to one damage record
    /// (1,000,000 bytes, counted from the input), streamed, not one record per byte.
    @Test func aMegabyteOfFalseStartsIsOneDamageRecord() throws {
        let line = "< " + String(repeating: "02", count: 1_000_000) + "\n"
        let result = try ReaderctlProcess.run(["decode", "--json", "-"], standardInput: Data(line.utf8))
        #expect(result.status == 1)
        let records = result.standardOutput.split(separator: "\n")
        #expect(records.count == 1)
        let record = try #require(try JSONSerialization.jsonObject(with: Data((records.first ?? "").utf8)) as? [String: Any])
        #expect(record["length"] as? Int == 1_000_000)
        #expect(record["reason"] as? String == "checksum-mismatch")
    }
}
