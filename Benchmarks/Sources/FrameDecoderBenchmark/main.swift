import MallocInterposerSwift
import ReaderProtocol

// FrameDecoder in steady state. Each workload is a list of notifications fed in a loop;
// the table shows time per notification and heap allocations per notification, counted
// by the malloc interposer (run through `Benchmarks/run`, which preloads it). A decoded
// frame's DATA is one allocation by design; feeding a chunk that completes no frame
// should cost none.

func notifications(_ stream: [UInt8], size: Int) -> [[UInt8]] {
    stride(from: 0, to: stream.count, by: size).map { Array(stream[$0..<min($0 + size, stream.count)]) }
}

let track1 = Array("%B4111111111111111^DOE/JOHN^2512101000000000000000?".utf8)
let track2 = Array(";4111111111111111=25121010000000000000?".utf8)
let swipeData = [0x00, UInt8(track1.count)] + track1 + [UInt8(track2.count)] + track2 + [0x00]
let swipeAnswer = (try? Frame(main: 0xC1, sub: 0x07, data: swipeData).encoded()) ?? []
let event = (try? Frame(main: 0xE0, sub: 0x01).encoded()) ?? []

let workloads: [(name: String, chunks: [[UInt8]])] = [
    ("swipe answer (101 B) in 20-byte notifications, MTU 23", notifications(swipeAnswer, size: 20)),
    ("100 swipe answers in 244-byte notifications, MTU 247",
     notifications(Array([[UInt8]](repeating: swipeAnswer, count: 100).joined()), size: 244)),
    ("events without DATA (7 B) in 20-byte notifications", notifications(Array([[UInt8]](repeating: event, count: 60).joined()), size: 20)),
    ("line noise only, 20-byte notifications", notifications((0..<4000).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) | 0x80 }, size: 20)),
]

let interposed = CommandLine.arguments.contains("--count-allocations")
if interposed { MallocInterposerSwift.initialize() }
print("workload | notifications/s | ns/notification | allocations/notification | frames/s")
print("--- | --- | --- | --- | ---")
for workload in workloads {
    var decoder = FrameDecoder()
    var frames = 0
    let handler = { (event: FrameDecoder.Event) in if case .frame = event { frames += 1 } }
    for chunk in workload.chunks { decoder.decode(chunk, handler) }  // warm up
    frames = 0
    let rounds = max(1, 400_000 / workload.chunks.count)
    if interposed {
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
    }
    let start = ContinuousClock.now
    for _ in 0..<rounds {
        for chunk in workload.chunks { decoder.decode(chunk, handler) }
    }
    let elapsed = ContinuousClock.now - start
    if interposed { MallocInterposerSwift.unhook() }
    let fed = Double(rounds * workload.chunks.count)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let allocations = interposed ? String(format3(Double(MallocInterposerSwift.getStatistics().mallocCount) / fed)) : "n/a"
    print("\(workload.name) | \(Int(fed / seconds)) | \(format3(seconds / fed * 1e9)) | \(allocations) | \(Int(Double(frames) / seconds))")
}

func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    return "\(scaled)"
}
