import Testing
@testable import ReaderProtocol

/// Recordings with timestamps cut off an incomplete frame where the link went quiet for
/// 250 ms, as a live host does; without timestamps only the end of the recording does.
/// Bytes: the field's MCU-restart start (header declaring 64 bytes), the documented ICC
/// POWER ON response 80 ms later, and the documented card-inserted event after 320 ms of
/// quiet. Offsets by hand: 0, 8, 28.
@Suite struct RecordingQuietCutOffTests {
    static let text = """
        0.000 < 02 C0 01 00 40 00 01 08
        0.080 < 02 C2 01 00 0D 00 3B 68 00 00 00 73 C8 40 13 00 90 00 C6 20
        0.400 < 02 E0 01 00 00 37 1A
        """

    func summary(_ entries: [RecordingDecoder.Entry]) -> [String] {
        entries.map { entry in
            switch entry.content {
            case .frame(let frame, let offset, _): "line \(entry.location): frame \(frame.code) at \(offset)"
            case .damage(let damage): "line \(entry.location): \(damage.reason.identifier) at \(damage.offset)"
            }
        }
    }

    @Test func theQuietBeforeAPacketCutsOffTheFrameAtThePacketBeforeIt() throws {
        let entries = RecordingDecoder.decode(try PacketRecordingText.parse(Self.text))
        #expect(summary(entries) == [
            "line 2: truncated at 0",
            "line 2: frame C2 01 at 8",
            "line 3: frame E0 01 at 28",
        ])
    }

    @Test func withoutTimestampsTheEndOfTheRecordingCutsItOff() throws {
        let untimed = Self.text.split(separator: "\n").map { $0.drop(while: { $0 != "<" }) }.joined(separator: "\n")
        let entries = RecordingDecoder.decode(try PacketRecordingText.parse(untimed))
        #expect(summary(entries) == [
            "line 3: truncated at 0",
            "line 3: frame C2 01 at 8",
            "line 3: frame E0 01 at 28",
        ])
    }
}
