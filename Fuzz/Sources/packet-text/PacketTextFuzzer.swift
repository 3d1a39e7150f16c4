import FuzzSupport
import ReaderProtocol

/// The recorded-packet text format, then what `readerctl decode` does with a recording:
/// both directions reassembled (with the 250 ms cut-off between timestamped packets), each
/// frame decoded as a message, each result presented masked and revealed.
///
/// A recording that parses must parse again, equal, from its rendering; and without its
/// timestamps (so without cut-offs) it must decode to what a frame decoder makes of each
/// direction's bytes, once consecutive damage of one kind is taken as one region on both
/// sides (the recording decoder reports such a run once; it ends a run early when the
/// other direction reports something in between).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPacketText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        guard let packets = try? PacketRecordingText.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        let again = try? PacketRecordingText.parse(PacketRecordingText.render(packets))
        check(
            again?.map(\.content).elementsEqual(packets.map(\.content), by: ==) == true,
            "a recording does not parse again from its rendering")

        let timed = RecordingDecoder.decode(packets)
        for entry in timed {
            _ = DecodedRecord(entry)
            _ = DecodedRecord(entry, revealingCardData: true)
        }

        let untimed = packets.map { RecordedPacket(direction: $0.direction, bytes: $0.bytes, location: $0.location) }
        let decoded = packets.contains { $0.timestamp != nil } ? RecordingDecoder.decode(untimed) : timed
        for direction in [LinkDirection.hostToReader, .readerToHost] {
            decoders[direction == .hostToReader ? 0 : 1].reset()
            var events = decoders[direction == .hostToReader ? 0 : 1].decode(
                untimed.filter { $0.direction == direction }.flatMap(\.bytes))
            events += decoders[direction == .hostToReader ? 0 : 1].finish()
            let recorded = decoded.filter { $0.direction == direction }.map(\.event)
            check(
                mergingDamageRuns(recorded) == mergingDamageRuns(events),
                "the recording decoder disagrees with a frame decoder (\(direction))")
        }
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("packet_text_main")
public func mainPacketText(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzPacketText) { fixtures in try fixtures.packetTexts() }
}

/// `events` with each run of damage of one kind, every region starting where the last
/// ended, as one region with the first one's details.
private func mergingDamageRuns(_ events: [FrameDecoder.Event]) -> [FrameDecoder.Event] {
    var merged: [FrameDecoder.Event] = []
    for event in events {
        if case .damage(let damage) = event, case .damage(var run)? = merged.last,
            run.offset + run.length == damage.offset, run.reason.identifier == damage.reason.identifier
        {
            run.length += damage.length
            merged[merged.count - 1] = .damage(run)
        } else {
            merged.append(event)
        }
    }
    return merged
}

/// One frame decoder per direction, made once (building one computes its CRC table).
nonisolated(unsafe) private var decoders = [FrameDecoder(), FrameDecoder()]

extension RecordedPacket {
    /// What the text holds of a packet (its location is the line it is on).
    fileprivate var content: [String] {
        [direction.description, bytes.description, timestamp.map { "\($0.bitPattern)" } ?? "-"]
    }
}

extension RecordingDecoder.Entry {
    /// The frame decoder's event this entry reports.
    fileprivate var event: FrameDecoder.Event {
        switch content {
        case .frame(let frame, let offset, _): .frame(frame, offset: offset)
        case .damage(let damage): .damage(damage)
        }
    }
}
