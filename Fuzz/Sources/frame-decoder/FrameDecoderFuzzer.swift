import FuzzSupport
@testable import ReaderProtocol

/// The frame decoder on arbitrary bytes, chunked arbitrarily, with cut-offs (`finish`, as
/// after 250 ms of quiet) anywhere between chunks.
///
/// Input: steps of one control byte (bit 7: cut off after the chunk; bits 0–6: the chunk's
/// length, 0…127) followed by the chunk's bytes; the first byte picks the profile.
///
/// Beyond not crashing, each run checks what the decoder promises whatever the bytes: the
/// buffer stays within one maximum frame and never grows; frames come in stream order, do
/// not overlap and are the stream's own bytes; damaged regions come in stream order and do
/// not overlap; nothing is reported inside a frame already reported; together they cover
/// the stream; noise holds no STX; only a cut-off reports `truncated`; and the same
/// segments fed whole decode to the same events and statistics.
///
/// Not asserted: one order of frames and damage together. A rejected candidate's region is
/// reported without the part earlier damage covered, so it can start after a frame that
/// rescanning the candidate finds and reports next (damage at 10, damage at 36, frame at 24).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        guard let first = bytes.first else { return }
        let profile = Int(first) % profiles.count
        // The stream (the chunks' bytes) and its chunks.
        var stream: [UInt8] = []
        stream.reserveCapacity(bytes.count)
        var chunks: [Chunk] = []
        var position = 1
        while position < bytes.count {
            let end = min(position + 1 + Int(bytes[position] & 0x7F), bytes.count)
            stream += bytes[(position + 1)..<end]
            chunks.append(Chunk(bytes: (stream.count - (end - position - 1))..<stream.count, cutOffAfter: bytes[position] & 0x80 != 0))
            position = end
        }
        let whole = chunks.reduce(into: [Chunk]()) { merged, chunk in
            if let last = merged.last, !last.cutOffAfter {
                merged[merged.count - 1] = Chunk(bytes: last.bytes.lowerBound..<chunk.bytes.upperBound, cutOffAfter: chunk.cutOffAfter)
            } else {
                merged.append(chunk)
            }
        }
        let chunked = decode(stream, chunks, with: &decoders[profile].chunked)
        let reference = decode(stream, whole, with: &decoders[profile].whole)
        check(chunked.events == reference.events, "events depend on how the stream is chunked")
        check(chunked.statistics == reference.statistics, "statistics depend on how the stream is chunked")
        verify(chunked, stream: stream, profile: profile)
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("frame_decoder_main")
public func mainFrameDecoder(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzFrameDecoder) { fixtures in
        try fixtures.streams().flatMap { stream in
            [(20, false), (100, false), (20, true)].map { size, cut in
                [0] + stride(from: 0, to: stream.count, by: size).flatMap { start in
                    let chunk = stream[start..<min(start + size, stream.count)]
                    return [UInt8(chunk.count) | (cut ? 0x80 : 0)] + chunk
                }
            }
        }
    }
}

/// The VPOS3356 profile, and one with another STX, a small maximum and a little-endian
/// reflected checksum, so that every rejection is easy to reach.
private let profiles: [FrameProfile] = [
    .vpos3356,
    FrameProfile(startByte: 0x7E, maximumDataLength: 16, checksum: .kermit, checksumByteOrder: .littleEndian),
]

/// Two decoders per profile, made once and `reset()` for each input: building one computes
/// its CRC table, which would cost more than most inputs.
nonisolated(unsafe) private var decoders = profiles.map { (chunked: FrameDecoder(profile: $0), whole: FrameDecoder(profile: $0)) }

/// The profiles' checksums, for checking reported frames against the stream.
private let checksums = profiles.map { CRC16($0.checksum) }

/// Stream bytes fed as one chunk, and whether a cut-off follows.
private struct Chunk {
    var bytes: Range<Int>
    var cutOffAfter: Bool
}

private struct Run {
    /// Every event, and whether a cut-off reported it.
    var events: [Event] = []
    var statistics = FrameDecoder.Statistics()
}

private struct Event: Equatable {
    var event: FrameDecoder.Event
    var duringFinish: Bool
}

/// Feeds the chunks of `stream` to `decoder`, reset first, with their cut-offs; ends with one.
private func decode(_ stream: [UInt8], _ chunks: [Chunk], with decoder: inout FrameDecoder) -> Run {
    decoder.reset()
    let profile = decoder.profile
    let capacity = decoder.bufferCapacity
    var run = Run()
    for (index, chunk) in chunks.enumerated() {
        decoder.decode(stream[chunk.bytes]) { run.events.append(Event(event: $0, duringFinish: false)) }
        check(decoder.bufferedByteCount <= profile.maximumFrameLength, "buffer beyond one maximum frame")
        check(decoder.bufferCapacity == capacity, "buffer reallocated")
        if chunk.cutOffAfter || index == chunks.count - 1 {
            decoder.finish { run.events.append(Event(event: $0, duringFinish: true)) }
            check(!decoder.hasIncompleteFrame, "bytes held after finish")
        }
    }
    run.statistics = decoder.statistics
    return run
}

private func verify(_ run: Run, stream: [UInt8], profile: Int) {
    let crc = checksums[profile]
    let profile = profiles[profile]
    check(run.statistics.bytesReceived == stream.count, "bytesReceived \(run.statistics.bytesReceived) != \(stream.count)")
    var frameEnd = 0
    var damageEnd = 0
    var covered = [Bool](repeating: false, count: stream.count)
    var frames = 0
    for (index, recorded) in run.events.enumerated() {
        let region: Range<Int>
        switch recorded.event {
        case .frame(let frame, let offset):
            frames += 1
            region = offset..<offset + frame.data.count + FrameProfile.overhead
            check(region.lowerBound >= frameEnd, "event \(index): frame overlaps or precedes the previous frame")
            check(region.upperBound <= stream.count, "event \(index): frame beyond the stream")
            let bytes = stream[region]
            let start = region.lowerBound
            let checksum = crc.checksum(bytes.dropFirst().dropLast(2))
            check(
                stream[start] == profile.startByte && stream[start + 1] == frame.code.main
                    && stream[start + 2] == frame.code.sub
                    && Int(stream[start + 3]) << 8 | Int(stream[start + 4]) == frame.data.count
                    && bytes.dropFirst(FrameProfile.headerLength).dropLast(2).elementsEqual(frame.data)
                    && UInt16(stream[region.upperBound - 2], stream[region.upperBound - 1], order: profile.checksumByteOrder)
                        == checksum,
                "event \(index): frame is not the stream's bytes, or its checksum fails")
        case .damage(let damage):
            region = damage.offset..<damage.offset + damage.length
            check(damage.length > 0, "event \(index): empty damage")
            check(region.lowerBound >= damageEnd, "event \(index): damage overlaps or precedes earlier damage")
            check(region.lowerBound >= frameEnd, "event \(index): damage inside or before the last frame")
            damageEnd = region.upperBound
            check(region.upperBound <= stream.count, "event \(index): damage beyond the stream")
            if damage.reason == .noise {
                check(!stream[region].contains(profile.startByte), "event \(index): noise holds STX")
            }
            if case .truncated = damage.reason {
                check(recorded.duringFinish, "event \(index): truncated outside a cut-off")
            }
        }
        for byte in region { covered[byte] = true }
        if case .frame = recorded.event { frameEnd = region.upperBound }
    }
    check(frames == run.statistics.frames, "statistics.frames \(run.statistics.frames) != \(frames) frames reported")
    check(!covered.contains(false), "a byte is in no frame and no damaged region")
}
