import CardReaderPCSC
import Synchronization

/// cardreaderd as the driver sees it, with what each call did written down.
final class FakeChipService: ChipService {
    struct Script {
        var view = ServiceView.reader(ReaderView(isConnected: true, slot: .present, answerToReset: []))
        /// The ATR PowerOn answers.
        var cardAnswer: [UInt8] = [0x3B, 0x68, 0x00, 0x00, 0x00, 0x73, 0xC8, 0x40, 0x13, 0x00, 0x90, 0x00]
        /// What Transmit answers, in turn.
        var responses: [[UInt8]] = []
        /// Hold fails `reader-held` this many times first.
        var heldTimes = 0
        /// The next chip call (PowerOn, Transmit, PowerOff) fails with this.
        var failNextCall: DriverFailure?
    }

    private let script: Mutex<Script>
    private let log = Mutex<[String]>([])
    private let leases = Mutex<[FakeLease]>([])

    init(_ script: Script = Script()) {
        self.script = Mutex(script)
    }

    /// The calls made, e.g. `hold`, `powerOn lease-1`, `transmit lease-1 00A4…`.
    var calls: [String] { log.withLock { $0 } }
    var takenLeases: [FakeLease] { leases.withLock { $0 } }

    func change(_ body: (inout Script) -> Void) { script.withLock { body(&$0) } }

    func view(of reader: String) -> ServiceView { script.withLock { $0.view } }

    func takeLease(on reader: String) async throws(DriverFailure) -> any ServiceLease {
        log.withLock { $0.append("hold") }
        let held = script.withLock { script -> Bool in
            guard script.heldTimes > 0 else { return false }
            script.heldTimes -= 1
            return true
        }
        if held { throw DriverFailure(kind: .held, message: "\(reader) is held by pos", reason: "reader-held") }
        let lease = leases.withLock { leases in
            leases.append(FakeLease(id: "lease-\(leases.count + 1)"))
            return leases[leases.count - 1]
        }
        return lease
    }

    func powerOn(_ reader: String, lease: String) async throws(DriverFailure) -> [UInt8] {
        try chipCall("powerOn \(lease)")
        return script.withLock { $0.cardAnswer }
    }

    func transmit(_ reader: String, lease: String, apdu: [UInt8]) async throws(DriverFailure) -> [UInt8] {
        try chipCall("transmit \(lease) \(apdu.map { String($0, radix: 16) }.joined(separator: " "))")
        return script.withLock { $0.responses.isEmpty ? [0x90, 0x00] : $0.responses.removeFirst() }
    }

    func powerOff(_ reader: String, lease: String) async throws(DriverFailure) {
        try chipCall("powerOff \(lease)")
    }

    private func chipCall(_ call: String) throws(DriverFailure) {
        log.withLock { $0.append(call) }
        if let failure = script.withLock({ script in defer { script.failNextCall = nil }; return script.failNextCall }) {
            throw failure
        }
    }
}

final class FakeLease: ServiceLease {
    let id: String
    private let released = Atomic(false)

    init(id: String) { self.id = id }

    var isHeld: Bool { !released.load(ordering: .relaxed) }
    var wasReleased: Bool { released.load(ordering: .relaxed) }
    func release() { released.store(true, ordering: .relaxed) }
}

/// A clock whose sleeps end at once: retries counted, never waited for.
struct ImmediateClock: Clock {
    typealias Duration = Swift.Duration
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }
    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

/// What the driver logged, for a test to read.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func withLock<Result>(_ body: ([String]) -> Result) -> Result { lines.withLock { body($0) } }
}
