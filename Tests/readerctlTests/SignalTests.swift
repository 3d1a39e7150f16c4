import Foundation
import Testing

/// How readerctl ends on a signal, also when started with one ignored (SIGHUP as under
/// `nohup`, SIGINT as a shell's background job).
@Suite struct SignalTests {
    /// Ctrl-C, SIGTERM and SIGHUP end a command the same way: the reader is sent CANCEL,
    /// and readerctl exits with 128 + the signal's number.
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func aSignalCancelsASwipeCleanly(signal: Int32, status expected: Int32) async throws {
        let run = try InteractiveReaderctl(["swipe", "--emulated", "--scenario", "no-swipe", "--verbose"])
        // The trace line is logged once the command is registered, just before it is written.
        #expect(run.waitForStandardError(containing: "→ READ MAGNETIC STRIPE"))
        #expect(run.standardError.contains("Swipe a card"))
        run.interrupt(with: signal)
        let status = run.waitForExit(within: 10)
        #expect(status == expected)
        #expect(run.standardError.contains("cancelled"))
        #expect(run.standardError.contains("→ CANCEL"))
    }

    /// A signal ignored when readerctl starts (SIGHUP under `nohup`) stays ignored: the
    /// swipe goes on until Ctrl-C, which ends it with 130.
    @Test func aSignalIgnoredAtStartStaysIgnored() async throws {
        let run = try InteractiveReaderctl(["swipe", "--emulated", "--scenario", "no-swipe", "--verbose"], ignoring: ["HUP"])
        #expect(run.waitForStandardError(containing: "→ READ MAGNETIC STRIPE"))
        run.interrupt(with: SIGHUP)
        run.interrupt(with: SIGINT)
        #expect(run.waitForExit(within: 10) == 130)
    }

    /// A shell starts a script's background job with SIGINT ignored (POSIX, without job
    /// control); `kill -INT` must still stop `readerctl emulate &` or a swipe, with 130.
    @Test func ctrlCIgnoredAtStartStillCancels() async throws {
        let run = try InteractiveReaderctl(["swipe", "--emulated", "--scenario", "no-swipe", "--verbose"], ignoring: ["INT"])
        #expect(run.waitForStandardError(containing: "→ READ MAGNETIC STRIPE"))
        run.interrupt(with: SIGINT)
        #expect(run.waitForExit(within: 10) == 130)
        #expect(run.standardError.contains("→ CANCEL"))
    }

    /// A session a signal ends is recorded all the same: the command, and the CANCEL that
    /// ended it.
    @Test func aRecordingIsKeptWhenASignalEndsTheCommand() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("signalled-\(UUID()).txt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try InteractiveReaderctl(["swipe", "--emulated", "--scenario", "no-swipe", "--verbose", "--record", path])
        #expect(run.waitForStandardError(containing: "→ READ MAGNETIC STRIPE"))
        run.interrupt(with: SIGTERM)
        #expect(run.waitForExit(within: 10) == 143)
        let decoded = try await ReaderctlProcess.run(["decode", path])
        #expect(decoded.status == 0, "\(decoded.standardError)")
        #expect(decoded.standardOutput.contains("READ MAGNETIC STRIPE"))
        #expect(decoded.standardOutput.contains("CANCEL"))
    }
}
