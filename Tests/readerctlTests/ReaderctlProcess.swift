import ChildProcessSupport
import Foundation
import TestEnvironment
import Testing

/// Runs the built `readerctl` (it sits beside the test bundle) and collects its output.
/// Every run is bounded: a process still running after `timeout` is killed and reported.
struct ReaderctlProcess {
    struct Result {
        var termination: ChildProcess.Termination
        var standardOutput: String
        var standardError: String

        /// The exit status; for a run killed by a signal, minus the signal's number, which
        /// equals no exit status.
        var status: Int32 { termination.status }
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
    /// `timeout` is a bound for a hung run, not a timing: in a whole suite run with both
    /// cores busy no run took more than 7.2 s (the megabyte decode aside, which sets its own).
    static func run(
        _ arguments: [String], standardInput: Data? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> Result {
        await concurrentRuns.acquire()
        defer { Task { await concurrentRuns.release() } }
        return try await onThreadOfItsOwn {
            try runOnThisThread(arguments, standardInput: standardInput, environment: environment, timeout: timeout)
        }
    }

    /// Eight runs per core. A debug readerctl spends 0.05–0.065 s of processor time on a
    /// run and most of its life waiting on the emulated reader's timers, so eight per core
    /// keep the cores busy without starving any run (the card-data audit: 27.6 s
    /// wall for 28 s of processor time on two cores). Unbounded, Swift Testing started every
    /// readerctl run at once, and a decode that takes 5 s alone ran out of its 60 s.
    static let concurrentRuns = RunSlots(count: 8 * ProcessInfo.processInfo.activeProcessorCount)

    /// Runs readerctl and blocks the calling thread until it ends.
    private static func runOnThisThread(
        _ arguments: [String], standardInput: Data?, environment: [String: String], timeout: TimeInterval
    ) throws -> Result {
        let started = ContinuousClock.now
        let deadline = started + .seconds(timeout)
        let child = try ChildProcess(
            [executable.path] + arguments, in: repositoryRoot.path, environment: childEnvironment(adding: environment),
            standardError: .piped)
        if let standardInput { try child.write(Array(standardInput), until: deadline) }
        child.closeInput()
        // Both streams are read as they come, so that a large output cannot block readerctl.
        var output: [UInt8] = [], error: [UInt8] = []
        while let (stream, bytes) = try child.readEither(until: deadline) {
            guard !bytes.isEmpty else {
                child.kill()
                throw TimedOut(arguments: arguments, what: "still running after \(timeout) s (killed)")
            }
            if stream == .standardOutput { output += bytes } else { error += bytes }
        }
        // The pipes close when readerctl ends, unless a child of its own kept them.
        let closed = ContinuousClock.now
        guard let termination = try? child.waitForExit(until: closed + .seconds(10)) else {
            throw TimedOut(arguments: arguments, what: "closed its output after \(closed - started), but was still running 10 s later")
        }
        let result = Result(
            termination: termination,
            standardOutput: String(decoding: output, as: UTF8.self),
            standardError: String(decoding: error, as: UTF8.self))
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

    private let child: ChildProcess
    private let arguments: [String]
    private let lock = NSCondition()
    private var errorText = ""
    private var outputText = ""
    /// Whether readerctl's output streams have both ended (it has exited, or is about to).
    private var ended = false
    /// The triggers not yet fired, in the order given.
    private var pending: [Trigger]
    /// When the first signal was sent.
    private var firstSignal: ContinuousClock.Instant?

    /// Starts readerctl with `arguments`, to be signalled by `triggers` in order. With
    /// `ignoring` (signal names such as `INT`), it starts with those signals ignored, as a
    /// shell starts a background job, through `sh -c 'trap "" …; exec readerctl …'`; with
    /// `blocking`, with those signals blocked, as a program's worker thread starts a child,
    /// through Python's `pthread_sigmask` and `execv` (the same process either way).
    init(_ arguments: [String], ignoring ignored: [String] = [], blocking blocked: [String] = [], _ triggers: Trigger...) throws {
        pending = triggers
        self.arguments = arguments
        let readerctl = ReaderctlProcess.executable.path
        let command: [String]
        if !ignored.isEmpty {
            command = ["/bin/sh", "-c", "trap '' \(ignored.joined(separator: " ")); exec \"$0\" \"$@\"", readerctl] + arguments
        } else if !blocked.isEmpty {
            let signals = blocked.map { "signal.SIG\($0)" }.joined(separator: ", ")
            command = [
                Self.python, "-c",
                "import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, [\(signals)]); os.execv(sys.argv[1], sys.argv[1:])",
                readerctl,
            ] + arguments
        } else {
            command = [readerctl] + arguments
        }
        child = try ChildProcess(
            command, in: ReaderctlProcess.repositoryRoot.path, environment: ReaderctlProcess.childEnvironment(),
            standardError: .piped)
        child.closeInput()
        Thread.detachNewThread { [self] in readUntilEnd() }
    }

    /// Reads readerctl's output until both streams end (it exits, or is killed by
    /// ``waitForExit(within:)``), on the thread that sends the triggers' signals.
    private func readUntilEnd() {
        while let (stream, bytes) = try? child.readEither(until: .now + .seconds(3600)) {
            append(bytes, error: stream == .standardError)
        }
        lock.lock()
        ended = true
        lock.broadcast()
        lock.unlock()
    }

    /// Keeps what readerctl wrote and sends every signal whose text has now appeared.
    private func append(_ bytes: [UInt8], error: Bool) {
        lock.lock()
        if error { errorText += String(decoding: bytes, as: UTF8.self) } else { outputText += String(decoding: bytes, as: UTF8.self) }
        while let trigger = pending.first,
            (trigger.stream == .standardError ? errorText : outputText).contains(trigger.text)
        {
            pending.removeFirst()
            firstSignal = firstSignal ?? .now
            child.send(trigger.signal)
        }
        lock.unlock()
    }

    /// Sends `signal` now, for a test that knows the moment itself.
    func send(_ signal: Int32) {
        lock.lock()
        firstSignal = firstSignal ?? .now
        lock.unlock()
        child.send(signal)
    }

    /// Whether every trigger has fired.
    var signalled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return pending.isEmpty
    }

    /// The exit status once readerctl has ended (minus the signal's number if a signal
    /// killed it); nil if it had not within `seconds` of the first signal, or within
    /// ``reachingTheFirstTrigger`` of this call while no signal has been sent: it is then
    /// killed. Waits on a thread of its own. readerctl was measured ending at most 0.16 s
    /// after the signal in a whole suite run with both cores busy; the default is a bound
    /// for one that does not stop at all.
    func waitForExit(within seconds: TimeInterval = 10) async -> Int32? {
        await onThreadOfItsOwn { self.blockUntilExit(within: seconds) }
    }

    /// How long readerctl may take to show a trigger's text: a bound for a hung run, not a
    /// timing. A command reaches its first exchange in about 0.3 s alone, and was measured
    /// taking at most 2.6 s in a whole suite run with both cores busy; over twenty times that.
    static let reachingTheFirstTrigger: TimeInterval = 60

    private func blockUntilExit(within seconds: TimeInterval) -> Int32? {
        let called = ContinuousClock.now
        lock.lock()
        while !ended {
            let deadline = firstSignal.map { $0 + .seconds(seconds) } ?? called + .seconds(Self.reachingTheFirstTrigger)
            guard lock.wait(until: Date(timeIntervalSinceNow: Self.seconds(until: deadline))) || ended else {
                lock.unlock()
                child.kill()
                return nil
            }
        }
        lock.unlock()
        // Its streams have closed: readerctl has exited, or does so now.
        guard let termination = try? child.waitForExit(until: .now + .seconds(10)) else { return nil }
        ReaderctlProcess.recordSanitizerReports(in: standardError, of: arguments)
        return termination.status
    }

    private static func seconds(until deadline: ContinuousClock.Instant) -> TimeInterval {
        let (seconds, attoseconds) = (deadline - .now).components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
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

extension ChildProcess.Termination {
    /// The exit status; minus the signal's number for a process a signal killed, which
    /// equals no exit status.
    var status: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): -signal
        }
    }
}
