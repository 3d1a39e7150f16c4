import ReaderProtocol
import TestEnvironment
import Testing

/// The sender against the receiver over a simulated link that loses and damages what the
/// host writes (a UART that overflows, a flipped byte), delays the reader's answers (now and
/// then past the sender's deadline, which §8 forbids) and swaps the notifications of an
/// `ACK` and the `C` that follows it, on a virtual clock. Hundreds of seeded runs; in every
/// one the transfer ends (no stall) and a file the receiver takes is the file sent, byte for
/// byte (never a wrong image, whatever the link did). The file is random, so a misplaced
/// block cannot pass for the right one.
@Suite struct YModemLossyLinkTests {
    struct Faults {
        /// Chance that a written packet loses a run of bytes inside it.
        var loss: Double
        /// Chance that a written packet has one byte flipped.
        var corruption: Double
        /// Chance that an answer comes after the sender's deadline.
        var lateAnswer: Double
        /// Chance that two notifications of one answer arrive swapped.
        var swap: Double
    }

    enum Event {
        case toReceiver([UInt8])
        case toSender([UInt8])
        case senderTimer(Int)
        case receiverTimer(Int)
    }

    /// The simulation's pending events, earliest first and, at one time, in the order
    /// posted. Kept sorted latest first, so the next event is the last element: each step
    /// costs a binary search and a pop, not a scan of every pending event (stale timers
    /// included), which made this suite the slowest in the package.
    struct EventQueue {
        private struct Entry {
            var at: Duration
            var event: Event
        }

        private var entries: [Entry] = []

        /// Posts `event` at `at`, after every event already posted for that time.
        mutating func post(_ event: Event, at: Duration) {
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].at > at { low = middle + 1 } else { high = middle }
            }
            entries.insert(Entry(at: at, event: event), at: low)
        }

        /// The earliest event and its time, removed; nil when none is pending.
        mutating func next() -> (at: Duration, event: Event)? {
            entries.popLast().map { ($0.at, $0.event) }
        }
    }

    struct Outcome {
        var senderFinished = false
        var senderFailed: YModemError?
        var received: [UInt8]?
        var ended: Duration = .zero
    }

    /// Runs one transfer of `file` in packets of `packet` bytes; the outcome.
    static func run(file: [UInt8], packet: Int, faults: Faults, seed: UInt64) -> Outcome {
        var random = SeededGenerator(seed: seed)
        var sender = YModemSender(fileName: "image.vfw", file: file)
        var receiver = YModemReceiver(expectedSize: file.count)
        var queue = EventQueue()
        var now = Duration.zero
        var linkFree = Duration.zero  // when the host may write its next packet
        var senderTimer = 0
        var receiverTimer = 0
        var outcome = Outcome()

        func post(_ event: Event, after delay: Duration) {
            queue.post(event, at: now + delay)
        }
        // Write Requests: one packet at a time, each 10 ms, in order.
        func write(_ bytes: [UInt8]) -> Duration {
            var start = 0
            while start < bytes.count {
                var piece = Array(bytes[start..<min(start + packet, bytes.count)])
                if Double.random(in: 0..<1, using: &random) < faults.loss, piece.count > 1 {
                    let from = Int.random(in: 0..<piece.count, using: &random)
                    piece.removeSubrange(from..<Int.random(in: (from + 1)...piece.count, using: &random))
                }
                if Double.random(in: 0..<1, using: &random) < faults.corruption, !piece.isEmpty {
                    piece[Int.random(in: 0..<piece.count, using: &random)] ^= 0x5A
                }
                linkFree = max(linkFree, now) + .milliseconds(10)
                queue.post(.toReceiver(piece), at: linkFree)
                start += packet
            }
            return max(linkFree, now)
        }
        func runSender(_ actions: [YModemSender.Action]) {
            var written = now
            for action in actions {
                switch action {
                case .send(let bytes): written = write(bytes)
                case .awaitAnswer(let limit):
                    senderTimer += 1
                    queue.post(.senderTimer(senderTimer), at: written + limit)
                case .finished: outcome.senderFinished = true
                case .failed(let error): outcome.senderFailed = error
                }
            }
        }
        func answer(_ bytes: [UInt8]) {
            let late = Double.random(in: 0..<1, using: &random) < faults.lateAnswer
            let delay: Duration = late ? .milliseconds(Int.random(in: 3_100...4_000, using: &random)) : .milliseconds(20)
            var pieces = bytes.map { [$0] }
            if pieces.count == 2, Double.random(in: 0..<1, using: &random) < faults.swap { pieces.swapAt(0, 1) }
            for (index, piece) in pieces.enumerated() { post(.toSender(piece), after: delay + .milliseconds(index)) }
        }
        func runReceiver(_ actions: [YModemReceiver.Action]) {
            for action in actions {
                switch action {
                case .send(let bytes): answer(bytes)
                case .armTimer(let delay):
                    receiverTimer += 1
                    post(.receiverTimer(receiverTimer), after: delay)
                case .blockReceived: runReceiver(receiver.acknowledge())
                case .fileReceived(_, let data):
                    outcome.received = data
                    runReceiver(receiver.accept())
                case .finished, .failed: break
                }
            }
        }

        runSender(sender.start())
        runReceiver(receiver.start())
        while !outcome.senderFinished, outcome.senderFailed == nil, now < .seconds(3600) {
            guard let (at, event) = queue.next() else { break }
            now = at
            switch event {
            case .toReceiver(let bytes): runReceiver(receiver.receive(bytes))
            case .toSender(let bytes): runSender(sender.receive(bytes))
            case .senderTimer(let id) where id == senderTimer: runSender(sender.deadlinePassed())
            case .receiverTimer(let id) where id == receiverTimer: runReceiver(receiver.deadlinePassed())
            case .senderTimer, .receiverTimer: break
            }
        }
        outcome.ended = now
        return outcome
    }

    static func file(seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed &+ 0x5EED)
        return (0..<(9 * 1024 + 300)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    @Test(arguments: [
        Faults(loss: 0.02, corruption: 0, lateAnswer: 0, swap: 0.5),
        Faults(loss: 0, corruption: 0.02, lateAnswer: 0, swap: 0.5),
        Faults(loss: 0.03, corruption: 0.02, lateAnswer: 0.05, swap: 0.5),
        Faults(loss: 0.2, corruption: 0.1, lateAnswer: 0.2, swap: 0.5),
    ])
    func aTakenFileIsAlwaysTheFileSent(faults: Faults) {
        var finished = 0
        for seed in UInt64(1)...150 {
            let file = Self.file(seed: seed)
            let outcome = Self.run(file: file, packet: seed % 2 == 0 ? 20 : 244, faults: faults, seed: seed)
            #expect(outcome.senderFinished || outcome.senderFailed != nil, "seed \(seed): no end by \(outcome.ended)")
            if let received = outcome.received {
                #expect(received.elementsEqual(file), "seed \(seed): the receiver took a file that is not the one sent")
            }
            if outcome.senderFinished {
                #expect(outcome.received != nil, "seed \(seed): the sender finished without the receiver's file")
                finished += 1
            }
        }
        // A link that loses a packet in fifty still delivers nearly every time.
        if faults.loss <= 0.03, faults.lateAnswer == 0 { #expect(finished >= 140) }
    }
}
