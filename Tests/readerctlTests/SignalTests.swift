import Foundation
import TestEnvironment
import Testing

/// How readerctl ends on a signal, also when started with one ignored (SIGHUP as under
/// `nohup`, SIGINT as a shell's background job).
@Suite struct SignalTests {
    /// Ctrl-C, SIGTERM and SIGHUP end a command the same way: the reader is sent CANCEL,
    /// and readerctl exits with 128 + the signal's number.
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func aSignalCancelsASwipeCleanly(signal: Int32, status expected: Int32) async throws {
        // The trace line is logged as the command is sent.
        let run = try InteractiveReaderctl(
            ["swipe", "--emulated", "--scenario", "no-swipe", "--verbose"],
            .signal(signal, whenStandardErrorShows: "→ READ MAGNETIC STRIPE"))
        let status = await run.waitForExit(within: 10)
        #expect(run.signalled)
        #expect(status == expected)
        #expect(run.standardError.contains("Swipe a card"))
        #expect(run.standardError.contains("cancelled"))
        #expect(run.standardError.contains("→ CANCEL"))
    }

    /// A signal ignored when readerctl starts (SIGHUP under `nohup`) stays ignored: the
    /// swipe goes on until Ctrl-C, which ends it with 130.
    @Test func aSignalIgnoredAtStartStaysIgnored() async throws {
        let run = try InteractiveReaderctl(
            ["swipe", "--emulated", "--scenario", "no-swipe", "--verbose"], ignoring: ["HUP"],
            .signal(SIGHUP, whenStandardErrorShows: "→ READ MAGNETIC STRIPE"),
            .signal(SIGINT, whenStandardErrorShows: "→ READ MAGNETIC STRIPE"))
        #expect(await run.waitForExit(within: 10) == 130)
        #expect(run.signalled)
    }

    /// A shell starts a script's background job with SIGINT ignored (POSIX, without job
    /// control); `kill -INT` must still stop `readerctl emulate &` or a swipe, with 130.
    @Test func ctrlCIgnoredAtStartStillCancels() async throws {
        let run = try InteractiveReaderctl(
            ["swipe", "--emulated", "--scenario", "no-swipe", "--verbose"], ignoring: ["INT"],
            .signal(SIGINT, whenStandardErrorShows: "→ READ MAGNETIC STRIPE"))
        #expect(await run.waitForExit(within: 10) == 130)
        #expect(run.signalled)
        #expect(run.standardError.contains("→ CANCEL"))
    }

    /// A session a signal ends is recorded all the same: the command, and the CANCEL that
    /// ended it.
    @Test func aRecordingIsKeptWhenASignalEndsTheCommand() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("signalled-\(UUID()).txt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try InteractiveReaderctl(
            ["swipe", "--emulated", "--scenario", "no-swipe", "--verbose", "--record", path],
            .signal(SIGTERM, whenStandardErrorShows: "→ READ MAGNETIC STRIPE"))
        #expect(await run.waitForExit(within: 10) == 143)
        #expect(run.signalled)
        let decoded = try await ReaderctlProcess.run(["decode", path])
        #expect(decoded.status == 0, "\(decoded.standardError)")
        #expect(decoded.standardOutput.contains("READ MAGNETIC STRIPE"))
        #expect(decoded.standardOutput.contains("CANCEL"))
    }

    /// Ctrl-C before any work with a reader has begun — here while `decode` waits for its
    /// recording on a named pipe — ends readerctl at once with 130, also when SIGINT was
    /// ignored at its start, as in a script's background job, or blocked, as when a
    /// program's worker thread starts it. readerctl takes the signal from its first line:
    /// when the handlers came with a command's work, such a signal was lost (ignored) or
    /// waited forever (blocked), and `readerctl … & kill -INT $!` ran on.
    @Test(arguments: [(["INT"], []), ([], ["INT"])])
    func ctrlCBeforeAnyWorkEndsReaderctl(ignoring: [String], blocking: [String]) async throws {
        try #require(
            blocking.isEmpty || FileManager.default.isExecutableFile(atPath: InteractiveReaderctl.python),
            "blocks signals with Python: apt-get install python3")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("early-signal-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("recording").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let run = try InteractiveReaderctl(["decode", fifo], ignoring: ignoring, blocking: blocking)
        // Opening the pipe for writing returns once readerctl has opened it to read: it is
        // running, past its start, and waits for the recording.
        let writer = await onThreadOfItsOwn { open(fifo, O_WRONLY) }
        try #require(writer >= 0)
        defer { close(writer) }
        run.send(SIGINT)
        #expect(await run.waitForExit(within: 10) == 130)
    }
}
