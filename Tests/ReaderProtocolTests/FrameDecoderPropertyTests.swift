import TestEnvironment
import Testing
@testable import ReaderProtocol

/// Property: any frames, split at any boundaries and surrounded by noise, decode back to
/// themselves. The expected frames are the generated values; the bytes come from
/// `Frame.encoded()`, whose output is pinned separately by the documentation's examples.
@Suite struct FrameDecoderPropertyTests {
    private struct Case {
        var frames: [Frame] = []
        var stream: [UInt8] = []
        var splits: [[UInt8]] = []
    }

    private func makeCase(seed: UInt64, noiseMayContainSTX: Bool) throws -> Case {
        var random = SeededGenerator(seed: seed)
        var result = Case()
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            result.stream += noise(&random, allowSTX: noiseMayContainSTX)
            let length = Bool.random(using: &random) ? Int.random(in: 0...40, using: &random) : Int.random(in: 0...1024, using: &random)
            let frame = Frame(
                main: UInt8.random(in: 0...255, using: &random), sub: UInt8.random(in: 0...255, using: &random),
                data: random.bytes(count: length))
            result.frames.append(frame)
            result.stream += try frame.encoded()
        }
        result.stream += noise(&random, allowSTX: noiseMayContainSTX)
        var index = 0
        while index < result.stream.count {
            let size = Int.random(in: 1...(Bool.random(using: &random) ? 20 : 244), using: &random)
            result.splits.append(Array(result.stream[index..<min(index + size, result.stream.count)]))
            index += size
        }
        return result
    }

    private func noise(_ random: inout SeededGenerator, allowSTX: Bool) -> [UInt8] {
        (0..<Int.random(in: 0...12, using: &random)).map { _ in
            let byte = UInt8.random(in: 0...255, using: &random)
            return !allowSTX && byte == 0x02 ? 0x03 : byte
        }
    }

    private func decode(_ splits: [[UInt8]]) -> (frames: [Frame], damage: [FrameDamage]) {
        var decoder = FrameDecoder()
        var frames: [Frame] = []
        var damage: [FrameDamage] = []
        let handler = { (event: FrameDecoder.Event) in
            switch event {
            case .frame(let frame, _): frames.append(frame)
            case .damage(let region): damage.append(region)
            }
        }
        for split in splits { decoder.decode(split, handler) }
        decoder.finish(handler)
        return (frames, damage)
    }

    /// Noise without STX: exactly the frames come back, and only noise is reported.
    @Test(arguments: 0..<200 as Range<UInt64>)
    func framesSurviveSplitsAndNoise(seed: UInt64) throws {
        let sample = try makeCase(seed: seed, noiseMayContainSTX: false)
        let decoded = decode(sample.splits)
        #expect(decoded.frames == sample.frames, "seed \(seed)")
        #expect(decoded.damage.allSatisfy { $0.reason == .noise }, "seed \(seed)")
    }

    /// Noise with false STX bytes: every real frame is still recovered, in order.
    @Test(arguments: 1000..<1200 as Range<UInt64>)
    func framesSurviveFalseStartsInNoise(seed: UInt64) throws {
        let sample = try makeCase(seed: seed, noiseMayContainSTX: true)
        let decoded = decode(sample.splits)
        var remaining = decoded.frames[...]
        for frame in sample.frames {
            guard let found = remaining.firstIndex(of: frame) else {
                Issue.record("seed \(seed): frame \(frame) lost")
                return
            }
            remaining = remaining[(found + 1)...]
        }
    }
}
