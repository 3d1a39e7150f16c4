import Foundation
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
        var description: String { "readerctl \(arguments.joined(separator: " ")) did not finish in time" }
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
    /// holds one of the cooperative pool's few threads, which the tests with real-time
    /// deadlines need.
    static func run(
        _ arguments: [String], standardInput: Data? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    try runOnThisThread(arguments, standardInput: standardInput, environment: environment, timeout: timeout)
                })
            }.start()
        }
    }

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
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw TimedOut(arguments: arguments)
        }
        // The pipes close when the process ends; a drain still running means a child kept them.
        guard drained.wait(timeout: .now() + 10) == .success, drained.wait(timeout: .now() + 10) == .success else {
            throw TimedOut(arguments: arguments)
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

/// A readerctl run the test interacts with while it runs: it can wait for text on standard
/// error (the prompt) and send Ctrl-C. Every wait is bounded.
final class InteractiveReaderctl: @unchecked Sendable {
    private let process = Process()
    private let lock = NSCondition()
    private var errorText = ""
    private var outputText = ""

    /// Starts readerctl with `arguments`; with `ignoring` (signal names such as `INT`), it
    /// starts with those signals ignored, as a shell starts a background job, through
    /// `sh -c 'trap "" …; exec readerctl …'` (the same process).
    init(_ arguments: [String], ignoring ignored: [String] = []) throws {
        if ignored.isEmpty {
            process.executableURL = ReaderctlProcess.executable
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' \(ignored.joined(separator: " ")); exec \"$0\" \"$@\"", ReaderctlProcess.executable.path]
                + arguments
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

    private func append(_ data: Data, error: Bool) {
        lock.lock()
        if error { errorText += String(decoding: data, as: UTF8.self) } else { outputText += String(decoding: data, as: UTF8.self) }
        lock.broadcast()
        lock.unlock()
    }

    /// Waits until standard error contains `text`; false if it did not within `seconds`.
    func waitForStandardError(containing text: String, within seconds: TimeInterval = 30) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        lock.lock()
        defer { lock.unlock() }
        while !errorText.contains(text) {
            guard lock.wait(until: deadline) else { return errorText.contains(text) }
        }
        return true
    }

    /// Sends `signal` (Ctrl-C's SIGINT by default).
    func interrupt(with signal: Int32 = SIGINT) {
        kill(process.processIdentifier, signal)
    }

    /// The exit status, or nil if it had not ended within `seconds` (it is then killed).
    func waitForExit(within seconds: TimeInterval = 30) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        lock.lock()
        while process.isRunning {
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
