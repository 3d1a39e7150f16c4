import TestEnvironment
import Testing
@testable import ReaderProtocol

/// Reassembly tests. Frames are the documentation's worked examples (DocumentedExamples);
/// offsets and lengths are counted by hand from those byte strings.
@Suite struct FrameDecoderTests {
    typealias Doc = DocumentedExamples

    private func decodeAll(_ pieces: [[UInt8]], finish: Bool = true) -> [FrameDecoder.Event] {
        var decoder = FrameDecoder()
        var events = pieces.flatMap { decoder.decode($0) }
        if finish { events += decoder.finish() }
        return events
    }

    private func frames(_ events: [FrameDecoder.Event]) -> [Frame] {
        events.compactMap { if case .frame(let frame, _) = $0 { frame } else { nil } }
    }

    private func damages(_ events: [FrameDecoder.Event]) -> [FrameDamage] {
        events.compactMap { if case .damage(let damage) = $0 { damage } else { nil } }
    }

    @Test func documentedSwipeResponseInSixNotifications() throws {
        let notifications = chunks(Doc.swipeResponse, of: 20)
        try #require(notifications.count == 6)
        var decoder = FrameDecoder()
        for notification in notifications.dropLast() {
            #expect(decoder.decode(notification).isEmpty)
        }
        let events = decoder.decode(notifications[5])
        let swipeData = [0x00, 0x33] + Array(Doc.swipeTrack1.utf8) + [0x27] + Array(Doc.swipeTrack2.utf8) + [0x00]
        #expect(events == [.frame(Frame(main: 0xC1, sub: 0x07, data: swipeData), offset: 0)])
    }

    @Test func oneByteChunks() {
        let events = decodeAll(chunks(Doc.iccPowerOnResponse, of: 1))
        #expect(events == [.frame(Frame(main: 0xC2, sub: 0x01, data: [0x00] + Doc.atr), offset: 0)])
    }

    @Test func severalFramesInOneChunkAndFramesStraddlingChunks() {
        let stream = Doc.getInfoRequest + Doc.cancelRequest + Doc.cardInsertedEvent + Doc.readMagneticStripe30s
        // 7 + 7 + 7 + 9 bytes: frames start at 0, 7, 14, 21. Chunks of 10 cut every frame but the first.
        let events = decodeAll(chunks(stream, of: 10))
        #expect(events == [
            .frame(Frame(main: 0xC0, sub: 0x01), offset: 0),
            .frame(Frame(main: 0xC0, sub: 0x02), offset: 7),
            .frame(Frame(main: 0xE0, sub: 0x01), offset: 14),
            .frame(Frame(main: 0xC1, sub: 0x07, data: [0x00, 0x1E]), offset: 21),
        ])
    }

    @Test func noiseBetweenFramesIsSkippedCountedAndReported() {
        let stream = [0xFF, 0x00, 0x41] + Doc.getInfoRequest + [0x13, 0x37] + Doc.cancelRequest
        var decoder = FrameDecoder()
        let events = decoder.decode(stream) + decoder.finish()
        #expect(events == [
            .damage(FrameDamage(offset: 0, length: 3, reason: .noise)),
            .frame(Frame(main: 0xC0, sub: 0x01), offset: 3),
            .damage(FrameDamage(offset: 10, length: 2, reason: .noise)),
            .frame(Frame(main: 0xC0, sub: 0x02), offset: 12),
        ])
        #expect(decoder.statistics.noiseBytes == 5)
        #expect(decoder.statistics.frames == 2)
    }

    @Test func noiseSplitOverChunksIsOneRegion() {
        let events = decodeAll([[0xAA, 0xBB], [0xCC], Doc.getInfoRequest])
        #expect(damages(events) == [FrameDamage(offset: 0, length: 3, reason: .noise)])
    }

    @Test func badChecksumIsReportedAndTheNextFrameSurvives() {
        var damaged = Doc.getInfoRequest
        damaged[6] ^= 0x01 // CRC 00 54 becomes 00 55
        let events = decodeAll([damaged + Doc.cancelRequest])
        #expect(events == [
            .damage(FrameDamage(offset: 0, length: 7, reason: .checksumMismatch(computed: 0x0054, received: 0x0055))),
            .frame(Frame(main: 0xC0, sub: 0x02), offset: 7),
        ])
    }

    @Test func lengthOutOfRangeIsRejectedAsSoonAsTheHeaderArrives() {
        var decoder = FrameDecoder()
        // LEN 0x0401 = 1025 > 1024: decided on the 5 header bytes alone.
        let events = decoder.decode([0x02, 0xC1, 0x07, 0x04, 0x01])
        #expect(events == [.damage(FrameDamage(
            offset: 0, length: 5, reason: .lengthOutOfRange(declared: 1025, maximum: 1024)))])
        #expect(decoder.bufferedByteCount == 0)
        #expect(decoder.statistics.lengthErrors == 1)
    }

    /// A false STX in noise declares LEN 0x0010 (16): the candidate spans the real frame
    /// that follows. Once its 23 bytes are in, its checksum fails and the real frame inside
    /// is found by rescanning, not lost.
    @Test func falseStartInNoiseDoesNotSwallowTheNextGoodFrame() {
        let falseStart: [UInt8] = [0x02, 0x99, 0x99, 0x00, 0x10]
        let tail = [UInt8](repeating: 0x55, count: 11) // completes the false candidate's 23 bytes
        let events = decodeAll([falseStart, Doc.getInfoRequest, tail], finish: false)
        #expect(frames(events) == [Frame(main: 0xC0, sub: 0x01)])
        guard case .damage(let first) = events.first, case .checksumMismatch = first.reason else {
            Issue.record("expected the false candidate's checksum failure first, got \(events)")
            return
        }
        #expect(first.offset == 0 && first.length == 23)
        #expect(events.contains(.frame(Frame(main: 0xC0, sub: 0x01), offset: 5)))
    }

    /// The same false start at the end of the input: `finish()` cuts it off and recovers the frame.
    @Test func falseStartAtEndOfInputIsRecoveredByFinish() {
        let events = decodeAll([[0x02, 0x99, 0x99, 0x00, 0x40], Doc.cancelRequest])
        #expect(events == [
            .damage(FrameDamage(offset: 0, length: 12, reason: .truncated(expectedLength: 71))),
            .frame(Frame(main: 0xC0, sub: 0x02), offset: 5),
        ])
    }

    /// A live link's cut-off: the field's MCU-restart bytes (a header declaring 64 bytes, 3
    /// bytes of DATA) then a whole frame leave the decoder holding an incomplete frame;
    /// `finish()` recovers the frame (offset 8, counted by hand), and decoding goes on with
    /// offsets that continue (the event at 8 + 20 = 28).
    @Test func finishCutsOffAStalledFrameAndDecodingGoesOn() {
        var decoder = FrameDecoder()
        let restarted: [UInt8] = [0x02, 0xC0, 0x01, 0x00, 0x40, 0x00, 0x01, 0x08]
        #expect(decoder.decode(restarted + Doc.iccPowerOnResponse).isEmpty)
        #expect(decoder.hasIncompleteFrame)
        #expect(decoder.finish() == [
            .damage(FrameDamage(offset: 0, length: 28, reason: .truncated(expectedLength: 71))),
            .frame(Frame(main: 0xC2, sub: 0x01, data: [0x00] + Doc.atr), offset: 8),
        ])
        #expect(!decoder.hasIncompleteFrame)
        #expect(decoder.decode(Doc.cardInsertedEvent) == [.frame(Frame(main: 0xE0, sub: 0x01), offset: 28)])
    }

    /// The field's false STX in noise (`FF 02 00 07 01 10`: MAIN 00, SUB 07, LEN 272) split
    /// across two notifications, then a frame: cut off, the noise byte and the frame come out.
    @Test func aSplitFalseStartIsCutOffAndTheFrameBehindItRecovered() {
        var decoder = FrameDecoder()
        var events = decoder.decode([0xFF, 0x02, 0x00]) + decoder.decode([0x07, 0x01, 0x10] + Doc.getInfoRequest)
        #expect(events.isEmpty)
        events = decoder.finish()
        #expect(events == [
            .damage(FrameDamage(offset: 0, length: 1, reason: .noise)),
            .damage(FrameDamage(offset: 1, length: 12, reason: .truncated(expectedLength: 279))),
            .frame(Frame(main: 0xC0, sub: 0x01), offset: 6),
        ])
    }

    /// Card data that looks like a frame stays data: the outer frame completes first.
    @Test func aFrameInsideDataIsNotTakenForAFrame() throws {
        let outer = try Frame(main: 0xC2, sub: 0x02, data: [0x00] + Doc.cardInsertedEvent + [0x90, 0x00]).encoded()
        let events = decodeAll(chunks(outer, of: 3))
        #expect(frames(events) == [Frame(main: 0xC2, sub: 0x02, data: [0x00] + Doc.cardInsertedEvent + [0x90, 0x00])])
        #expect(damages(events).isEmpty)
    }

    @Test func truncatedTailIsReportedByFinish() {
        let events = decodeAll([Doc.getInfoRequest, Array(Doc.swipeResponse.prefix(40))])
        #expect(events == [
            .frame(Frame(main: 0xC0, sub: 0x01), offset: 0),
            .damage(FrameDamage(offset: 7, length: 40, reason: .truncated(expectedLength: 101))),
        ])
    }

    @Test func truncatedHeaderIsReportedByFinish() {
        let events = decodeAll([[0x02, 0xC1, 0x07]])
        #expect(events == [.damage(FrameDamage(offset: 0, length: 3, reason: .truncated(expectedLength: nil)))])
    }

    @Test func resetForgetsAPartialFrameAndRestartsOffsets() {
        var decoder = FrameDecoder()
        _ = decoder.decode(Doc.swipeResponse.prefix(30))
        decoder.reset()
        #expect(decoder.bufferedByteCount == 0)
        #expect(decoder.decode(Doc.cancelRequest) == [.frame(Frame(main: 0xC0, sub: 0x02), offset: 0)])
        #expect(decoder.statistics.bytesReceived == 7)
    }

    /// Whatever it is fed, the decoder holds at most one maximum-size frame and never grows
    /// its buffer. Input: seeded random bytes rich in STX and in plausible lengths.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func memoryStaysBounded(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var decoder = FrameDecoder()
        let capacity = decoder.bufferCapacity
        #expect(capacity >= FrameProfile.vpos3356.maximumFrameLength)
        var largestBuffer = 0
        for _ in 0..<300 {
            var chunk = random.bytes(count: Int.random(in: 1...600, using: &random))
            for index in chunk.indices where index % 7 == 0 { chunk[index] = 0x02 }
            for index in chunk.indices where index % 7 == 3 { chunk[index] = UInt8.random(in: 0...4, using: &random) }
            decoder.decode(chunk) { _ in }
            largestBuffer = max(largestBuffer, decoder.bufferedByteCount)
        }
        #expect(largestBuffer <= FrameProfile.vpos3356.maximumFrameLength)
        #expect(largestBuffer > 500) // the input did make it hold long candidates
        #expect(decoder.bufferCapacity == capacity)
    }

    /// Noise: 7F (1), the bad-CRC candidate's bytes after its STX (6), the bad-length
    /// candidate's bytes after its STX (4) = 11.
    @Test func statisticsCountEveryKindOfDamage() {
        var corrupt = Doc.cancelRequest
        corrupt[2] = 0x03
        var decoder = FrameDecoder()
        decoder.decode([0x7F] + corrupt + [0x02, 0x00, 0x00, 0xFF, 0xFF] + Doc.getInfoRequest + [0x02]) { _ in }
        decoder.finish { _ in }
        #expect(decoder.statistics == FrameDecoder.Statistics(
            bytesReceived: 21, frames: 1, noiseBytes: 11, lengthErrors: 1, checksumErrors: 1, truncatedFrames: 1))
    }
}
