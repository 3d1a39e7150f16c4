import Foundation
import Testing
import ReaderProtocol

/// btmon captures of the end-to-end suite over a real bluetoothd (Fixtures/captures):
/// the emulated reader as a BLE peripheral on hci0, CardReaderKit on hci1, with Enhanced
/// ATT. Each decodes to the frames in `NAME.expected.jsonl`, which an independent
/// extractor (its own btsnoop, L2CAP, EATT and frame parsing, in Python) produced.
/// Expected records hold each frame's place, time (its btsnoop record's, in seconds since
/// the first record), code, kind and status, not its fields.
@Suite struct CaptureGoldenTests {
    static let captures = FixtureFiles.names(in: "captures", endingIn: ".btsnoop")

    private func records(_ name: String) throws -> [DecodedRecord] {
        let capture = try BTSnoopFile(bytes: try FixtureFiles.bytes("captures", "\(name).btsnoop"))
        return RecordingDecoder.decode(try ReaderATTTraffic.packets(in: capture)).map { DecodedRecord($0) }
    }

    @Test func thereIsACapture() {
        #expect(!Self.captures.isEmpty)
    }

    @Test(arguments: captures)
    func captureDecodesToItsExpectedFrames(name: String) throws {
        let expected = try FixtureFiles.text("captures", "\(name).expected.jsonl")
            .split(separator: "\n")
            .map { try JSONDecoder().decode(DecodedRecord.self, from: Data($0.utf8)) }
        // Fields are not in these expected records: under the golden convention
        // (GoldenRecords), what an expected record leaves out of fields is not compared.
        #expect(expected.allSatisfy { $0.fields == nil })
        #expect(GoldenRecords.differences(actual: try records(name), expected: expected) == [])
    }

    /// The session swipes the built-in Visa test card (4111 1111 1111 1111, 2512) and reads
    /// its EMV application (A0000000031010).
    @Test func sessionCaptureHoldsTheSwipeAndTheEMVRead() throws {
        let records = try records("bluez-session")
        let swipe = try #require(records.first { $0.kind == "response" && $0.code == "C1 07" && $0.status == "00" })
        #expect(swipe.fields?["track2.pan"] == "411111******1111")
        #expect(swipe.fields?["track2.expiry"] == "2512")
        let apdus = records.filter { $0.code == "C2 02" && $0.kind == "response" }
        #expect(apdus.contains { $0.dataObjects?.first?.tag == "6F" && $0.dataObjects?.first?.children?.first?.value == "2PAY.SYS.DDF01" })
        #expect(records.allSatisfy { $0.type == "frame" && $0.kind != "invalid" })
    }

    @Test func captureWithoutTheReadersDiscoveryIsAnError() {
        // A btsnoop header (monitor link type 2001) and no records.
        let empty = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x07, 0xD1]
        #expect(throws: BTSnoopError.readerCharacteristicsNotDiscovered) {
            try ReaderATTTraffic.packets(in: try BTSnoopFile(bytes: empty))
        }
        #expect(throws: BTSnoopError.unsupportedLinkType(1)) {
            try BTSnoopFile(bytes: Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0, 1])
        }
    }
}
