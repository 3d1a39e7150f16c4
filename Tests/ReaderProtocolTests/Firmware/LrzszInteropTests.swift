#if canImport(Glibc)  // ChildProcess
import ChildProcessSupport
import Foundation
import ReaderProtocol
import TestEnvironment
import Testing

/// lrzsz's YModem receiver.
private let lrzszReceiver = "/usr/bin/rb"

/// The YModem-1K sender against lrzsz's `rb`, an independent YModem receiver: rb is the
/// oracle. If it takes the sender's blocks, answers its EOT and end of batch, exits 0 and
/// writes the very bytes that were sent, the sender speaks YModem as others understand it,
/// not only as its own unit tests say. Runs where `/usr/bin/rb` exists (.ci/run installs
/// lrzsz).
///
/// rb reads the sender's bytes on its standard input, answers on its standard output and
/// writes the file into its working directory, a fresh temporary one per test. The driver
/// below is what a link does with the sender's actions: `.send` is a write, `.awaitAnswer`
/// a deadline on the next read, after which the sender hears ``YModemSender/deadlinePassed()``.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: lrzszReceiver), "needs rb: apt-get install lrzsz"))
struct LrzszInteropTests {
    /// rb in YModem batch mode, no newline conversion, no progress reports.
    static let arguments = [lrzszReceiver, "--ymodem", "--binary", "--quiet"]
    /// Everything one transfer may take, rb's exit included: a bound for a hung transfer.
    /// Measured at most 3.7 s in a whole suite run with both cores busy; five times that.
    static let bound = Duration.seconds(20)

    /// rb waits for a second of quiet on the line before its first `C`, before it answers
    /// an EOT and again before its `C` for the next file (so a transfer takes 3 s): 2 s, the
    /// reader's answer deadline, is not far off, so the answers here may take longer. The
    /// start deadline stays within the transfer's bound.
    static let configuration = YModemSender.Configuration(startTimeout: .seconds(10), answerTimeout: .seconds(5))

    /// What became of one transfer.
    struct Outcome {
        /// The sender's `.finished` or `.failed`.
        var end: YModemSender.Action
        var rbEnded: ChildProcess.Termination
        /// What rb sent after the sender's end, up to its exit.
        var rbLastBytes: [UInt8]
        /// The file rb wrote under the announced name, if any.
        var received: [UInt8]?
        /// rb's standard error.
        var log: String

        var receivedDescription: String { received.map { "\($0.count) bytes" } ?? "no file" }
    }

    /// Sends `file` as `fileName` to a new rb, calling ``YModemSender/cancel()`` once
    /// `cancelAfterBlocks` blocks have been acknowledged (if given). The transfer blocks in
    /// poll(2), so it runs on a thread of its own, not on one of the few that other tests'
    /// tasks share.
    func transfer(fileName: String, file: [UInt8], cancelAfterBlocks: Int? = nil) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try Self.transferBlocking(fileName: fileName, file: file, cancelAfterBlocks: cancelAfterBlocks)
                })
            }
        }
    }

    static func transferBlocking(fileName: String, file: [UInt8], cancelAfterBlocks: Int?) throws -> Outcome {
        let deadline = ContinuousClock.now + Self.bound
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lrzsz-interop-\(UUID().uuidString)")
        let directory = work.appendingPathComponent("received")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let logFile = work.appendingPathComponent("rb.log").path
        let child = try ChildProcess(Self.arguments, in: directory.path, standardError: .appended(to: logFile))
        var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

        var sender = YModemSender(fileName: fileName, file: file, configuration: Self.configuration)
        var actions = sender.start()
        var answerDeadline = deadline
        var end: YModemSender.Action?
        var cancelled = false
        while end == nil {
            if let cancelAfterBlocks, !cancelled, sender.acknowledgedBytes >= cancelAfterBlocks * 1024 {
                // Given up between blocks: CAN CAN instead of the next block. (rb drops what
                // it has read past a block once it has acknowledged it, so CAN CAN written
                // right behind a block may go unheard; rb then NAKs for 50 s.)
                cancelled = true
                actions = sender.cancel()
            }
            for action in actions {
                switch action {
                case .send(let bytes): try child.write(bytes, until: deadline)
                case .awaitAnswer(let within): answerDeadline = min(ContinuousClock.now + within, deadline)
                case .finished, .failed: end = action
                }
            }
            actions = []
            if end != nil { break }
            guard ContinuousClock.now < deadline else {
                child.kill()
                throw ChildProcess.Failure(description: "no end within \(Self.bound) in phase \(sender.phase); rb: \(log)")
            }
            guard let bytes = try child.read(until: answerDeadline) else {
                throw ChildProcess.Failure(description: "rb closed its output in phase \(sender.phase); rb: \(log)")
            }
            actions = bytes.isEmpty ? sender.deadlinePassed() : sender.receive(bytes)
        }
        let lastBytes = try child.readToEnd(until: deadline)
        let rbEnded = try child.waitForExit(until: deadline)
        let received = try? [UInt8](Data(contentsOf: directory.appendingPathComponent(fileName)))
        return Outcome(end: end!, rbEnded: rbEnded, rbLastBytes: lastBytes, received: received, log: log)
    }

    /// The fixture image (three blocks, the last a short one padded with 1A) arrives byte
    /// for byte: rb cuts the padding at the size block 0 announced.
    @Test func rbReceivesTheFirmwareImage() async throws {
        let image = try FixtureFiles.bytes("firmware", "vpos3356-2.5.0.vfw")
        let outcome = try await transfer(fileName: "vpos3356-2.5.0.vfw", file: image)
        #expect(outcome.end == .finished, "rb: \(outcome.log)")
        #expect(outcome.rbEnded == .exited(0), "rb: \(outcome.log)")
        let intact = outcome.received == image  // compared first, so a failure does not print every byte
        #expect(intact, "rb wrote \(outcome.receivedDescription)")
    }

    /// 300,000 bytes: 293 blocks, so block numbers wrap from 255 to 0 and rb, which checks
    /// each block's number against the one it expects, must see them wrap the same way;
    /// the last block carries 992 bytes.
    @Test func blockNumbersWrapPast255() async throws {
        var generator = SeededGenerator(seed: 0x5EED_0293)
        let file = generator.bytes(count: 300_000)
        let outcome = try await transfer(fileName: "random.bin", file: file)
        #expect(outcome.end == .finished, "rb: \(outcome.log)")
        #expect(outcome.rbEnded == .exited(0), "rb: \(outcome.log)")
        let intact = outcome.received == file  // compared first, so a failure does not print every byte
        #expect(intact, "rb wrote \(outcome.receivedDescription)")
    }

    /// The sender's `CAN CAN` after three blocks ends rb with a failure, and no complete
    /// file is left (rb removes the partial one).
    @Test func rbHonoursCancellation() async throws {
        var generator = SeededGenerator(seed: 0xCA_2CA2)
        let file = generator.bytes(count: 20 * 1024)
        let outcome = try await transfer(fileName: "cancelled.bin", file: file, cancelAfterBlocks: 3)
        #expect(outcome.end == .failed(.cancelled(block: 4)))
        #expect(outcome.rbEnded != .exited(0), "rb: \(outcome.log)")
        #expect(outcome.rbLastBytes.contains(YModem.can))  // rb's own CANs: it has given up too
        let complete = outcome.received == file
        #expect(!complete, "rb wrote \(outcome.receivedDescription)")
    }
}
#endif
