import Foundation
import Testing
import ReaderProtocol

/// Every recording in `Fixtures/packets` decodes to the records stored beside it
/// (`NAME.expected.jsonl`). The expected records were written from the reader
/// documentation's meaning of each frame, with frames and CRCs built by an independent
/// (bitwise, Python) implementation of §2 — not from this code's output.
///
/// They are compared as `readerctl decode --expect` compares them (``GoldenRecords``):
/// prose (`detail`) is left out, and a field whose expected value is `*` must be present
/// with any value (prose too, such as a status word's meaning). Each record's timestamp is
/// the one written on its line of the recording.
@Suite struct RecordedPacketGoldenTests {
    static let recordings = FixtureFiles.names(in: "packets", endingIn: ".txt")

    @Test func everyCommandAndResponseIsRecordedAtBothMTUs() {
        let names = Set(Self.recordings)
        for name in ["get-info", "cancel-swipe", "swipe", "swipe-bad", "swipe-timeout", "icc-power-on",
                     "icc-select-ppse", "icc-get-response", "icc-status-power-off", "firmware-update", "events",
                     "status-codes", "damaged-noise", "damaged-bad-crc", "damaged-bad-length", "damaged-truncated",
                     "damaged-event-mid-response", "damaged-false-start"] {
            #expect(names.contains("\(name)-mtu23") && names.contains("\(name)-mtu247"), "\(name)")
        }
    }

    @Test(arguments: recordings)
    func recordingDecodesToItsExpectedRecords(name: String) throws {
        let packets = try PacketRecordingText.parse(try FixtureFiles.text("packets", "\(name).txt"))
        let actual = RecordingDecoder.decode(packets).map { DecodedRecord($0) }
        let expected = try FixtureFiles.text("packets", "\(name).expected.jsonl")
            .split(separator: "\n")
            .map { try JSONDecoder().decode(DecodedRecord.self, from: Data($0.utf8)) }
        #expect(!expected.isEmpty)
        #expect(GoldenRecords.differences(actual: actual, expected: expected) == [], "\(name)")
    }

    /// The documentation's 101-byte example arrives in six notifications at MTU 23.
    @Test func documentedSwipeRecordingIsSixNotifications() throws {
        let packets = try PacketRecordingText.parse(try FixtureFiles.text("packets", "swipe-mtu23.txt"))
        let notifications = packets.filter { $0.direction == .readerToHost }
        #expect(notifications.map(\.bytes.count) == [20, 20, 20, 20, 20, 1])
        #expect(notifications.flatMap(\.bytes) == DocumentedExamples.swipeResponse)
    }
}
