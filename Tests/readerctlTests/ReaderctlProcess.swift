import Foundation

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

    static func run(_ arguments: [String], standardInput: Data? = nil, timeout: TimeInterval = 60) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
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
        // Drain the pipes while the process runs so a large output cannot block it.
        nonisolated(unsafe) var outputData = Data()
        nonisolated(unsafe) var errorData = Data()
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) { outputData = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: drained) { errorData = error.fileHandleForReading.readDataToEndOfFile() }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw TimedOut(arguments: arguments)
        }
        _ = drained.wait(timeout: .now() + 10)
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}
