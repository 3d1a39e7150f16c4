import Foundation
import TestEnvironment
import Testing

/// Runs the built `readerctl` (it sits beside the test bundle) and collects its output.
/// Every run is bounded: a process still running after `timeout` is killed and reported.
struct ReaderctlProcess {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    struct TimedOut: Error, CustomStringConvertible {
        var arguments: [String]
        /// What did not happen in time.
        var what: String
        var description: String { "readerctl \(arguments.joined(separator: " ")): \(what)" }
    }

    static let executable: URL = {
        let bundle = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = bundle.deletingLastPathComponent()
        // The Linux test runner is `<products>/<Package>PackageTests.xctest`; elsewhere the
        // executable sits inside a bundle folder below the products folder.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("readerctl").path),
              directory.pathComponents.count > 1 {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("readerctl")
    }()

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs readerctl with `arguments` (`environment` adds to, or overrides, the test's own)
    /// and waits for it on a thread of its own: a test waiting for a readerctl run never
    /// holds one of the cooperative pool's few threads. At most ``concurrentRuns`` run at
    /// once, so that `timeout` bounds one run's work, not its wait behind every other test's.
    static func run(
        _ arguments: [String], standardInput: Data? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> Result {
        await concurrentRuns.acquire()
        defer { Task { await concurrentRuns.release() } }
        return try await onThreadOfItsOwn {
            try runOnThisThread(arguments, standardInput: standardInput, environment: environment, timeout: timeout)
        }
    }

    /// Two runs per core: each is busy on the processor most of its life (a debug build
    /// parses its command line for about 0.2 s), so more at once only share the cores more
    /// thinly. Swift Testing starts every test at once, which started every readerctl run
    /// together, and a decode that takes 5 s alone then ran out of its 60 s.
    static let concurrentRuns = RunSlots(count: 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// Runs readerctl and blocks the calling thread until it ends.
    private static func runOnThisThread(
        _ arguments: [String], standardInput: Data?, environment: [String: String], timeout: TimeInterval
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = childEnvironment(adding: environment)
        process.currentDirectoryURL = repositoryRoot
        let output = Pipe()
        let error = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        if let standardInput { input.fileHandleForWriting.write(standardInput) }
        try input.fileHandleForWriting.close()
        // Drain the pipes while the process runs so a large output cannot block it. Threads
        // of their own, not dispatch's pool: many runs at once must not wait for its threads.
        nonisolated(unsafe) var outputData = Data()
        nonisolated(unsafe) var errorData = Data()
        let drained = DispatchSemaphore(value: 0)
        Thread {
            outputData = output.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }.start()
        Thread {
            errorData = error.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }.start()
        let started = ContinuousClock.now
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw TimedOut(arguments: arguments, what: "still running after \(timeout) s (killed)")
        }
        // The pipes close when the process ends; a drain still running means a child kept them.
        let exited = ContinuousClock.now
        guard drained.wait(timeout: .now() + 10) == .success, drained.wait(timeout: .now() + 10) == .success else {
            throw TimedOut(
                arguments: arguments,
                what: "exited after \(exited - started), but its output was still open \(ContinuousClock.now - exited) later")
        }
        let result = Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
        recordSanitizerReports(in: result.standardError, of: arguments)
        return result
    }

    /// The test's environment with `extra` on top; under Scripts/sanitize, the options that
    /// make LeakSanitizer check readerctl at exit (the test runner itself runs without).
    static func childEnvironment(adding extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        if let options = environment["READERCTL_ASAN_OPTIONS"] {
            environment["ASAN_OPTIONS"] = options
        }
        return environment
    }

    /// A sanitizer report from readerctl fails the test that ran it, whatever its exit status.
    static func recordSanitizerReports(in standardError: String, of arguments: [String]) {
        for marker in ["ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer"]
        where standardError.contains(marker) {
            Issue.record("readerctl \(arguments.joined(separator: " ")): \(marker)\n\(standardError)")
        }
    }
}

/// At most `count` holders at once; the others wait their turn, in order.
actor RunSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// A readerctl run that a test signals at a moment readerctl itself reports: each signal is
/// sent as soon as its text appears in readerctl's output, by the thread that read it. A
/// test's own task, resumed once the text had come, would send it only when the
/// cooperative pool got round to it: seconds later on a loaded machine, when the command
/// may have moved on or ended. Every wait is bounded.
final class InteractiveReaderctl: @unchecked Sendable {
    /// A signal and the moment to send it: once `text` has appeared on the stream.
    struct Trigger {
        enum Stream {
            case standardError
            case standardOutput
        }

        var signal: Int32
        var text: String
        var stream: Stream

        /// `signal` once readerctl's standard error (its prompts, and with `--verbose` each
        /// command as it is sent) contains `text`.
        static func signal(_ signal: Int32, whenStandardErrorShows text: String) -> Trigger {
            Trigger(signal: signal, text: text, stream: .standardError)
        }

        /// `signal` once readerctl's standard output (a firmware update's progress) contains `text`.
        static func signal(_ signal: Int32, whenStandardOutputShows text: String) -> Trigger {
            Trigger(signal: signal, text: text, stream: .standardOutput)
        }
    }

    /// What starts readerctl with signals blocked.
    static let python = "/usr/bin/python3"

    private let process = Process()
    private let lock = NSCondition()
    private var errorText = ""
    private var outputText = ""
    /// The triggers not yet fired, in the order given.
    private var pending: [Trigger]
    /// When the first signal was sent.
    private var firstSignal: Date?

    /// Starts readerctl with `arguments`, to be signalled by `triggers` in order. With
    /// `ignoring` (signal names such as `INT`), it starts with those signals ignored, as a
    /// shell starts a background job, through `sh -c 'trap "" …; exec readerctl …'`; with
    /// `blocking`, with those signals blocked, as a program's worker thread starts a child,
    /// through Python's `pthread_sigmask` and `execv` (the same process either way).
    init(_ arguments: [String], ignoring ignored: [String] = [], blocking blocked: [String] = [], _ triggers: Trigger...) throws {
        pending = triggers
        if !ignored.isEmpty {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' \(ignored.joined(separator: " ")); exec \"$0\" \"$@\"", ReaderctlProcess.executable.path]
                + arguments
        } else if !blocked.isEmpty {
            let signals = blocked.map { "signal.SIG\($0)" }.joined(separator: ", ")
            process.executableURL = URL(fileURLWithPath: Self.python)
            process.arguments = [
                "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, [\(signals)]); os.execv(sys.argv[1], sys.argv[1:])",
                ReaderctlProcess.executable.path,
            ] + arguments
        } else {
            process.executableURL = ReaderctlProcess.executable
            process.arguments = arguments
        }
        process.environment = ReaderctlProcess.childEnvironment()
        process.currentDirectoryURL = ReaderctlProcess.repositoryRoot
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        error.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, error: true) }
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, error: false) }
        process.terminationHandler = { [weak self] _ in self?.append(Data(), error: false) }
        try process.run()
    }

    /// Keeps what readerctl wrote and sends every signal whose text has now appeared.
    private func append(_ data: Data, error: Bool) {
        lock.lock()
        if error { errorText += String(decoding: data, as: UTF8.self) } else { outputText += String(decoding: data, as: UTF8.self) }
        while let trigger = pending.first,
            (trigger.stream == .standardError ? errorText : outputText).contains(trigger.text)
        {
            pending.removeFirst()
            firstSignal = firstSignal ?? Date()
            kill(process.processIdentifier, trigger.signal)
        }
        lock.broadcast()
        lock.unlock()
    }

    /// Sends `signal` now, for a test that knows the moment itself.
    func send(_ signal: Int32) {
        lock.lock()
        firstSignal = firstSignal ?? Date()
        lock.unlock()
        kill(process.processIdentifier, signal)
    }

    /// Whether every trigger has fired.
    var signalled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return pending.isEmpty
    }

    /// The exit status once readerctl has ended; nil if it had not within `seconds` of the
    /// first signal, or within ``reachingTheFirstTrigger`` of this call while no signal has
    /// been sent: it is then killed. Waits on a thread of its own.
    func waitForExit(within seconds: TimeInterval = 10) async -> Int32? {
        await onThreadOfItsOwn { self.blockUntilExit(within: seconds) }
    }

    /// How long readerctl may take to show a trigger's text: a bound for a hung run, not a
    /// timing. A command reaches its first exchange in about 0.3 s alone and in at most 5 s
    /// in a whole suite run with every core busy; ten times that.
    static let reachingTheFirstTrigger: TimeInterval = 60

    private func blockUntilExit(within seconds: TimeInterval) -> Int32? {
        let called = Date()
        lock.lock()
        while process.isRunning {
            let deadline = firstSignal.map { $0.addingTimeInterval(seconds) }
                ?? called.addingTimeInterval(Self.reachingTheFirstTrigger)
            guard lock.wait(until: deadline) || !process.isRunning else {
                lock.unlock()
                process.terminate()
                return nil
            }
        }
        lock.unlock()
        ReaderctlProcess.recordSanitizerReports(in: standardError, of: process.arguments ?? [])
        return process.terminationStatus
    }

    var standardError: String {
        lock.lock()
        defer { lock.unlock() }
        return errorText
    }

    var standardOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return outputText
    }
}
