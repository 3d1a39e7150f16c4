import FramingReference
import Glibc
import MallocInterposerSwift
import ReaderProtocol

// The framing hot paths beside minimal C written from the reader's documentation
// (Sources/FramingReference), in one run: the CRC over 64 KiB, encoding a frame, and
// reassembling frames from notifications at MTU 23 and 247. Each figure is the best of
// several rounds, SDK and C taken in turn; the ratio is what to compare between machines.
// Run through `Benchmarks/run`, which preloads the malloc interposer, to count the SDK's
// heap allocations.
//
// Usage: FramingBenchmark [--count-allocations] [crc] [encoding] [reassembly]
// (the sections to run; all by default). Exit status 1 if an implementation computes a
// wrong result or the SDK misses a goal.

let countAllocations = CommandLine.arguments.contains("--count-allocations")
if countAllocations { MallocInterposerSwift.initialize() }
let sectionsAsked = Set(CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--") })

/// Seconds per call of `body(0)`, `body(1)`, … `body(count - 1)`: the best of `rounds`
/// rounds of `calls` calls, the rounds taken in turn so that a busy moment of the machine
/// hits each alike.
func bestTimes(of count: Int, rounds: Int = 15, calls: Int, _ body: (Int) -> Void) -> [Double] {
    var best = [Double](repeating: .infinity, count: count)
    for _ in 0..<rounds {
        for index in 0..<count {
            let start = ContinuousClock.now
            for _ in 0..<calls { body(index) }
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            best[index] = min(best[index], (Double(seconds) + Double(attoseconds) / 1e18) / Double(calls))
        }
    }
    return best
}

/// Heap allocations made by `body`, when the interposer is loaded.
func allocations(_ body: () -> Void) -> Int? {
    guard countAllocations else { return nil }
    MallocInterposerSwift.reset()
    MallocInterposerSwift.hook()
    body()
    MallocInterposerSwift.unhook()
    return MallocInterposerSwift.getStatistics().mallocCount
}

func fixed(_ value: Double, _ digits: Int = 2) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    return "\((value * scale).rounded() / scale)"
}

func megabytesPerSecond(_ seconds: Double, bytes: Int) -> String { fixed(Double(bytes) / seconds / 1e6, 0) }

/// "met" or "MISSED", noting a miss for the exit status.
@MainActor func verdict(_ met: Bool) -> String {
    if !met { failures.append("a goal was missed") }
    return met ? "met" : "MISSED"
}

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ message: String) {
    if !condition { failures.append(message) }
}

/// A swipe answer: 101 bytes of DATA (both tracks of a test card), 108 bytes framed.
enum Swipe {
    static let track1 = Array("%B4111111111111111^DOE/JOHN^2512101000000000000000?".utf8)
    static let track2 = Array(";4111111111111111=25121010000000000000?".utf8)
    static let data = [0x00, UInt8(track1.count)] + track1 + [UInt8(track2.count)] + track2 + [0x00]
    static let frame = Frame(main: 0xC1, sub: 0x07, data: data)
    static let answer = (try? frame.encoded()) ?? []
}

@MainActor func crcSection() {
    print("## CRC-16/CCITT-FALSE over 64 KiB")
    let checkInput = Array("123456789".utf8)
    check(CRC16(.ccittFalse).checksum(checkInput) == 0x29B1, "SDK CRC misses the catalogue check value 0x29B1")
    check(reference_crc16_byte_table(checkInput, checkInput.count) == 0x29B1, "C byte table misses 0x29B1")
    check(reference_crc16_slicing_by_8(checkInput, checkInput.count) == 0x29B1, "C slicing-by-8 misses 0x29B1")
    var generator = SystemRandomNumberGenerator()
    let block = (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }
    check(CRC16(.ccittFalse).checksum(block) == reference_crc16_byte_table(block, block.count), "SDK and C CRCs differ")
    var sink: UInt16 = 0
    let times = bestTimes(of: 3, calls: 100) { implementation in
        switch implementation {
        case 0: sink ^= CRC16(.ccittFalse).checksum(block)
        case 1: sink ^= reference_crc16_byte_table(block, block.count)
        default: sink ^= reference_crc16_slicing_by_8(block, block.count)
        }
    }
    let allocated = allocations { sink ^= CRC16(.ccittFalse).checksum(block) }
    print("implementation | MB/s | SDK speed ÷ this | goal")
    print("--- | --- | --- | ---")
    print("SDK, `CRC16(.ccittFalse).checksum` | \(megabytesPerSecond(times[0], bytes: block.count)) | 1.0 |")
    print(
        "C, byte table | \(megabytesPerSecond(times[1], bytes: block.count)) | \(fixed(times[1] / times[0]))"
            + " | ≥ 3: \(verdict(times[1] / times[0] >= 3))")
    print("C, slicing-by-8 | \(megabytesPerSecond(times[2], bytes: block.count)) | \(fixed(times[2] / times[0])) |")
    print("SDK heap allocations per checksum: \(allocated.map(String.init) ?? "n/a")")
    if sink == 1 { print() }  // keeps the results alive
}

@MainActor func encodingSection() {
    print("## Encoding a swipe answer (101 B of DATA)")
    var out = [UInt8](repeating: 0, count: Swipe.answer.count)
    let length = reference_encode_frame(0xC1, 0x07, Swipe.data, Swipe.data.count, &out)
    check(Swipe.answer == Array(out[..<length]), "SDK and C encode the swipe answer differently")
    var sink = 0
    let times = bestTimes(of: 2, calls: 50_000) { implementation in
        if implementation == 0 {
            sink &+= (try? Swipe.frame.encoded())?.count ?? 0
        } else {
            sink &+= reference_encode_frame(0xC1, 0x07, Swipe.data, Swipe.data.count, &out)
        }
    }
    let allocated = allocations { sink &+= (try? Swipe.frame.encoded())?.count ?? 0 }
    print("implementation | ns per frame | SDK speed ÷ this")
    print("--- | --- | ---")
    print("SDK, `Frame.encoded()`, a new array | \(fixed(times[0] * 1e9, 1)) | 1.0")
    print("C, sliced CRC, into the caller's buffer | \(fixed(times[1] * 1e9, 1)) | \(fixed(times[1] / times[0]))")
    print("SDK heap allocations per frame: \(allocated.map(String.init) ?? "n/a") (the encoded bytes)")
    if sink == 1 { print() }
}

@MainActor func reassemblySection() {
    print("## Reassembly: 64 swipe answers (108 B frames) from notifications")
    print("notifications | SDK MB/s | C MB/s | SDK speed ÷ C | goal | SDK allocations per notification | per frame")
    print("--- | --- | --- | --- | --- | --- | ---")
    let frameCount = 64
    let stream = Array([[UInt8]](repeating: Swipe.answer, count: frameCount).joined())
    for (mtu, size) in [(23, 20), (247, 244)] {
        let chunks = stride(from: 0, to: stream.count, by: size).map { Array(stream[$0..<min($0 + size, stream.count)]) }
        guard let reassembler = reference_reassembler_create() else { return check(false, "out of memory") }
        defer { reference_reassembler_destroy(reassembler) }
        var decoder = FrameDecoder()
        var (frames, referenceFrames) = (0, 0)
        let times = bestTimes(of: 2, calls: 100) { implementation in
            if implementation == 0 {
                for chunk in chunks { decoder.decode(chunk) { if case .frame = $0 { frames += 1 } } }
            } else {
                for chunk in chunks { referenceFrames += reference_reassembler_feed(reassembler, chunk, chunk.count) }
            }
        }
        check(
            frames == referenceFrames && frames % frameCount == 0 && frames > 0,
            "MTU \(mtu): SDK decoded \(frames) frames, C \(referenceFrames)")
        let allocated = allocations { for chunk in chunks { decoder.decode(chunk) { _ in } } }
        let speed = times[1] / times[0]
        print(
            "\(size) B (MTU \(mtu)) | \(megabytesPerSecond(times[0], bytes: stream.count))"
                + " | \(megabytesPerSecond(times[1], bytes: stream.count)) | \(fixed(speed)) | ≥ 1: \(verdict(speed >= 1))"
                + " | \(allocated.map { fixed(Double($0) / Double(chunks.count), 3) } ?? "n/a")"
                + " | \(allocated.map { fixed(Double($0) / Double(frameCount), 3) } ?? "n/a")")
    }
}

for (name, section) in [("crc", crcSection), ("encoding", encodingSection), ("reassembly", reassemblySection)]
where sectionsAsked.isEmpty || sectionsAsked.contains(name) {
    section()
    print()
}
if !failures.isEmpty {
    for failure in failures { print("FAILED: \(failure)") }
    exit(1)
}
