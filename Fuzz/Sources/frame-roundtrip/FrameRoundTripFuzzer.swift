import FuzzSupport
import ReaderProtocol

/// Structure-aware: line noise that may hold STX, then one encoded frame, then more noise,
/// split into arbitrary chunks and ended with `finish()`. The frame must come out whole, at
/// its offset.
///
/// Input: a flags byte (bit 0: a quiet cut-off, `finish()`, between the first noise and the
/// frame); the noise (a length byte, then its bytes); MAIN, SUB, DATA's length (2 bytes, mod
/// 1025) and DATA; the trailing noise (length byte, bytes); then chunk lengths, one byte
/// each (0 reads as 1), the last chunk taking what is left.
///
/// The one exception the decoder allows: a false STX in the noise whose candidate happens to
/// carry a valid checksum is a frame (frames are trusted by their CRC), and when it reaches
/// into the real frame it swallows it. A fuzzer can build such a collision, so the property
/// is: the frame is reported at its offset, or a frame reported earlier in the stream
/// overlaps it; never the latter after a cut-off, nor when the noise holds no STX.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameRoundTrip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        var input = FuzzInput(bytes)
        let quiet = input.bool()
        let noise = input.shortRun()
        let main = input.byte()
        let sub = input.byte()
        let frame = Frame(main: main, sub: sub, data: input.bytes(input.int(in: 0...1024)))
        let trailing = input.shortRun()
        guard let encoded = try? frame.encoded() else {
            check(false, "a frame of \(frame.data.count) bytes does not encode")
            return
        }
        let stream = noise + encoded + trailing

        var decoder = FrameDecoder()
        var events: [FrameDecoder.Event] = []
        var position = 0
        while position < stream.count {
            var end = input.isAtEnd ? stream.count : min(position + max(Int(input.byte()), 1), stream.count)
            if quiet, position < noise.count, end > noise.count { end = noise.count }
            decoder.decode(stream[position..<end]) { events.append($0) }
            if quiet, end == noise.count { decoder.finish { events.append($0) } }
            position = end
        }
        decoder.finish { events.append($0) }

        let frames = events.compactMap { event -> (frame: Frame, offset: Int)? in
            if case .frame(let frame, let offset) = event { return (frame, offset) }
            return nil
        }
        if frames.contains(where: { $0.offset == noise.count && $0.frame == frame }) {
            if !noise.contains(FrameProfile.vpos3356.startByte) {
                check(frames.first?.offset == noise.count, "a frame reported inside STX-free noise")
                check(
                    events.allSatisfy { event in
                        guard case .damage(let damage) = event, damage.offset < noise.count else { return true }
                        return damage.reason == .noise
                    }, "STX-free noise reported as other damage")
            }
            return
        }
        check(!quiet, "the frame is lost although a cut-off ended the noise")
        check(noise.contains(FrameProfile.vpos3356.startByte), "the frame is lost behind noise without STX")
        check(
            frames.contains { $0.offset < noise.count && $0.offset + $0.frame.data.count + FrameProfile.overhead > noise.count },
            "the frame is lost, and no checksum-valid false frame swallowed it")
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("frame_roundtrip_main")
public func mainFrameRoundTrip(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzFrameRoundTrip) { fixtures in
        // No noise; the documentation's false STX (declares 272 bytes); a restarted frame's header.
        let noises: [[UInt8]] = [[], [0xFF, 0x02, 0x00, 0x07, 0x01, 0x10], [0x02, 0xC0, 0x01, 0x00, 0x40, 0x00, 0x11]]
        return try fixtures.frames().enumerated().map { index, entry in
            let noise = noises[index % noises.count]
            let length = entry.frame.data.count
            return [UInt8(index / noises.count % 2), UInt8(noise.count)] + noise
                + [entry.frame.code.main, entry.frame.code.sub, UInt8(length >> 8), UInt8(length & 0xFF)]
                + entry.frame.data + [0] + [UInt8](repeating: 20, count: (noise.count + length + 7) / 20 + 1)
        }
    }
}
