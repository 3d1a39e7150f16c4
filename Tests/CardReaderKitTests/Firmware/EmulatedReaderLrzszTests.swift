#if canImport(Glibc)  // ChildProcess
import BLETransport
import CardReaderKit
import CardReaderKitTesting
import ChildProcessSupport
import Foundation
import ManualClockSteps
import ReaderProtocol
import Testing

/// lrzsz's YModem sender.
private let lrzszSender = "/usr/bin/sb"

/// The emulated reader's firmware update (documentation §7) fed by lrzsz's `sb`, an
/// independent YModem sender, in place of CardReaderKit's own: sb is the oracle. After
/// ENTER FIRMWARE UPDATE the host side here is only a pump, sb's standard output written to
/// the reader in packets of 20 bytes (MTU 23) and the reader's notifications written to
/// sb's standard input, so the image reaches the reader exactly as a third-party YModem
/// implementation sends it: 128-byte block 0 with sb's "name NUL size mtime mode …"
/// fields, 1 KiB blocks, EOT twice, the end-of-batch block. Runs where `/usr/bin/sb`
/// exists (.ci/run installs lrzsz).
///
/// sb's output is read on a thread of its own (poll(2) blocks). The reader runs on a
/// manual clock, stepped through its 10 ms disconnect delay and 50 ms restart only: none of
/// its own deadlines (a `C` again after 1 s, a block cut short after 1 s of silence) can
/// pass while sb, a real process on a busy machine, takes its time. sb keeps its own
/// timeouts (10 s for an answer). Every wait is bounded by ``bound``.
@Suite(
    .enabled(if: FileManager.default.isExecutableFile(atPath: lrzszSender), "needs sb: apt-get install lrzsz"),
    .timeLimit(.minutes(1)))
struct EmulatedReaderLrzszTests {
    /// sb in YModem batch mode with 1 KiB blocks, no newline conversion, its messages on
    /// standard error (kept for failure reports); then the file.
    static let arguments = [lrzszSender, "--ymodem", "--1k", "--binary", "--verbose"]
    /// Everything one transfer may take, sb's exit included: a bound for a hung transfer, not
    /// a timing. Measured at most 6.8 s in a whole suite run with both cores busy
    /// (`Scripts/repeat-tests --load always --long`); six times that.
    static let bound = Duration.seconds(40)
    static let imageName = "vpos3356-2.5.0.vfw"
    static let notificationLength = 20

    static func fixtureImage() throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Fixtures/firmware/\(imageName)")
        return Array(try Data(contentsOf: url))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What sb's side of the pump saw.
    enum SenderOutput: Sendable {
        case bytes([UInt8])
        case exited(ChildProcess.Termination)
        case failed(String)
    }

    /// What the reader's side of the pump saw.
    struct LinkSummary: Sendable {
        /// The answer to ENTER FIRMWARE UPDATE.
        var response: ReaderResponse?
        /// YModem bytes the reader sent, all written to sb.
        var bytesToSender = 0
        /// Why the reader dropped the link, if it did.
        var dropped: LinkError?
    }

    /// What became of one update.
    struct Outcome {
        var sbEnded: ChildProcess.Termination
        var link: LinkSummary
        var log: String
    }

    /// Sends the fixture image from a new sb to a new emulated reader under `scenario`.
    /// With `expectRestart`, the pump ends when the reader drops the link to restart;
    /// without, once sb has exited, the host disconnects. The reader's clock steps on
    /// until the returned stepper stops.
    func update(scenario: [String] = [], expectRestart: Bool) async throws -> (EmulatedReader, Outcome, ClockStepper) {
        let deadline = ContinuousClock.now + Self.bound
        let image = try Self.fixtureImage()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "emulated-reader-lrzsz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(image).write(to: directory.appendingPathComponent(Self.imageName))
        let logFile = directory.appendingPathComponent("sb.log").path
        var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

        let clock = ManualClock()
        let stepper = ClockStepper(clock, throughSleepsWithin: .milliseconds(50))
        let reader = EmulatedReader(
            scenario: try EmulatorScenario(parsing: scenario),
            configuration: EmulatedReaderConfiguration(
                firmwareDisconnectDelay: .milliseconds(10), firmwareRestartTime: .milliseconds(50)),
            clock: clock)
        let connection = try await reader.connect(maximumNotificationLength: Self.notificationLength, encrypted: true)
        // sb waits (10 s a try, six tries) for the reader's first `C`.
        let child = try ChildProcess(Self.arguments + [Self.imageName], in: directory.path, standardError: .appended(to: logFile))
        defer { child.kill() }

        try await Self.write(
            try ReaderCommand.enterFirmwareUpdate(imageSize: UInt32(image.count)).frame.encoded(),
            to: reader, connection: connection.id)
        let output = Self.output(of: child, until: deadline)
        let (sbEnded, link) = try await within(Self.bound, "sb's exit and the end of the link") {
            async let link = Self.forward(connection.notifications, to: child, until: deadline)
            let sbEnded = try await Self.forward(output, to: reader, connection: connection.id)
            if !expectRestart || sbEnded != .exited(0) { await reader.disconnect(connection: connection.id) }
            return (sbEnded, try await link)
        }
        return (reader, Outcome(sbEnded: sbEnded, link: link, log: log), stepper)
    }

    /// `bytes` written to the reader in packets of the link's size.
    static func write(_ bytes: [UInt8], to reader: EmulatedReader, connection: Int) async throws {
        for start in stride(from: 0, to: bytes.count, by: notificationLength) {
            let packet = Array(bytes[start..<min(start + notificationLength, bytes.count)])
            try await reader.receive(packet, connection: connection)
        }
    }

    /// sb's standard output as it comes, then its exit; read on a thread of its own.
    static func output(of child: ChildProcess, until deadline: ContinuousClock.Instant) -> AsyncStream<SenderOutput> {
        AsyncStream { continuation in
            Thread.detachNewThread {
                do {
                    while let bytes = try child.read(until: deadline) {
                        guard !bytes.isEmpty else { throw Failure(description: "sb still running at the deadline") }
                        continuation.yield(.bytes(bytes))
                    }
                    continuation.yield(.exited(try child.waitForExit(until: deadline)))
                } catch {
                    continuation.yield(.failed("\(error)"))
                }
                continuation.finish()
            }
        }
    }

    /// sb's output → the reader, in packets of 20 bytes; returns how sb ended.
    static func forward(
        _ output: AsyncStream<SenderOutput>, to reader: EmulatedReader, connection: Int
    ) async throws -> ChildProcess.Termination {
        for await item in output {
            switch item {
            case .bytes(let bytes): try await write(bytes, to: reader, connection: connection)
            case .exited(let termination): return termination
            case .failed(let reason): throw Failure(description: reason)
            }
        }
        throw Failure(description: "sb's output ended without its exit (cancelled)")
    }

    /// The reader's notifications → sb: first the response to ENTER FIRMWARE UPDATE (its
    /// own notifications; the reader sends YModem in notifications of their own), then
    /// every notification to sb's standard input, until the link ends.
    static func forward(
        _ notifications: AsyncStream<LinkInbound>, to child: ChildProcess, until deadline: ContinuousClock.Instant
    ) async throws -> LinkSummary {
        var summary = LinkSummary()
        var decoder = FrameDecoder()
        for await item in notifications {
            switch item {
            case .notification(let bytes) where summary.response == nil:
                var frames: [Frame] = []
                decoder.decode(bytes) { if case .frame(let frame, _) = $0 { frames.append(frame) } }
                if let frame = frames.first { summary.response = try ReaderResponse(frame: frame) }
            case .notification(let bytes):
                #expect(bytes.count <= notificationLength)
                try child.write(bytes, until: deadline)
                summary.bytesToSender += bytes.count
            case .dropped(let reason):
                summary.dropped = reason
            }
        }
        return summary
    }

    /// sb sends the fixture image; the reader verifies it, acknowledges the batch (sb
    /// exits 0), drops the link and comes back on 2.5.0. With `firmware-nak=2` the reader
    /// refuses block 2 once and sb sends it again.
    @Test(arguments: [[], ["firmware-nak=2"]]) func readerTakesTheImageFromSb(scenario: [String]) async throws {
        let (reader, outcome, stepper) = try await update(scenario: scenario, expectRestart: true)
        defer { stepper.stop() }
        #expect(outcome.link.response?.code == .enterFirmwareUpdate)
        #expect(outcome.link.response?.status == .success)
        #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        #expect(outcome.link.dropped?.code == .remoteDisconnected, "sb: \(outcome.log)")
        #expect(await reader.lastDropCause?.code == .firmwareRestart)
        // At least: `C`; ACK C for block 0; an ACK per data block (and a NAK for a refused
        // one); NAK, then ACK C for the EOTs; the final ACK. (More if sb was slow to start and
        // the reader sent its `C` again after a second.)
        #expect(outcome.link.bytesToSender >= 1 + 2 + 3 + (scenario.isEmpty ? 0 : 1) + 1 + 2 + 1)
        try await within(Self.bound, "the reader's restart") { try await reader.waitUntilRunning() }
        #expect(await reader.firmwareVersion == "2.5.0")
    }

    /// With `firmware-corrupt` the reader rejects the image after the last block (`CAN CAN`
    /// in answer to the end-of-batch block) and stays on 3.1.0 without dropping the link;
    /// sb hears the CANs ("Cancelled" in its log) yet exits 0, since lrzsz ignores what
    /// becomes of its end-of-batch block. Only the reader's version tells the host.
    @Test func sbExitsZeroWhenTheReaderRejectsTheImage() async throws {
        let (reader, outcome, stepper) = try await update(scenario: ["firmware-corrupt"], expectRestart: false)
        stepper.stop()
        #expect(outcome.link.response?.status == .success)
        #expect(outcome.link.dropped == nil)
        #expect(outcome.log.contains("Cancelled"), "sb: \(outcome.log)")
        #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        #expect(await reader.firmwareVersion == "3.1.0")
    }
}

/// `body`'s result, or a failure once `bound` has passed (the body is then cancelled).
/// The sleep here only bounds the wait; nothing waits on it to happen.
private func within<T: Sendable>(
    _ bound: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: bound)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw EmulatedReaderLrzszTests.Failure(description: "\(what): not within \(bound)")
        }
        return value
    }
}
#endif
