import Testing
import ReaderProtocol

/// Consecutive damage of one kind is one entry, so a hostile recording yields few entries
/// whatever its size. Expected lengths are counted by hand from the inputs.
struct RecordingDamageRunTests {
    /// Every byte 02 is a false start whose header (02 02 02 02) declares 514 bytes of DATA,
    /// and no CRC ever matches: the whole line is one checksum-mismatch run.
    @Test func aLineOfFalseStartsIsOneEntry() {
        let packet = RecordedPacket(direction: .readerToHost, bytes: Array(repeating: 0x02, count: 5_000), timestamp: nil, location: 1)
        let entries = RecordingDecoder.decode([packet])
        #expect(entries.count == 1)
        guard case .damage(let damage)? = entries.first?.content else {
            Issue.record("expected one damage entry, got \(entries)")
            return
        }
        #expect(damage.offset == 0)
        #expect(damage.length == 5_000)
        #expect(damage.reason.identifier == "checksum-mismatch")
        #expect(entries.first?.location == 1)
    }

    /// Noise, then a frame, then noise split over two packets: the frame ends the first run;
    /// the two noise packets make one run. Each is reported at the packet that ended it (the
    /// frame's, and the last packet, at the end of the recording).
    @Test func aFrameOrAnotherKindEndsTheRun() throws {
        let event = try Frame(main: 0xE0, sub: 0x01).encoded()  // 7 bytes
        let packets = [
            RecordedPacket(direction: .readerToHost, bytes: [0xFF, 0xFE], timestamp: nil, location: 1),
            RecordedPacket(direction: .readerToHost, bytes: event, timestamp: nil, location: 2),
            RecordedPacket(direction: .readerToHost, bytes: [0xAA, 0xBB, 0xCC], timestamp: nil, location: 3),
            RecordedPacket(direction: .readerToHost, bytes: [0xDD], timestamp: nil, location: 4),
        ]
        let entries = RecordingDecoder.decode(packets)
        let summary = entries.map { entry -> String in
            switch entry.content {
            case .frame(_, let offset, _): "frame@\(offset) line \(entry.location)"
            case .damage(let damage): "\(damage.reason.identifier)@\(damage.offset)+\(damage.length) line \(entry.location)"
            }
        }
        #expect(summary == ["noise@0+2 line 2", "frame@2 line 2", "noise@9+4 line 4"])
    }

    /// Runs in the two directions never merge, even at the same offsets: each direction's
    /// stream has its own.
    @Test func directionsKeepTheirOwnRuns() {
        let falseStarts = Array(repeating: UInt8(0x02), count: 600)
        let packets = [
            RecordedPacket(direction: .readerToHost, bytes: falseStarts, timestamp: nil, location: 1),
            RecordedPacket(direction: .hostToReader, bytes: falseStarts, timestamp: nil, location: 2),
        ]
        let runs = RecordingDecoder.decode(packets).map { entry -> String in
            guard case .damage(let damage) = entry.content else { return "frame" }
            return "\(entry.direction) \(damage.offset)+\(damage.length)"
        }
        #expect(runs.sorted() == ["host-to-reader 0+600", "reader-to-host 0+600"])
    }
}
