import BLETransport
import CardReaderKit
import ChildProcessSupport
import Foundation
import Logging
import Testing

/// Whether this process runs inside the bluez-vm guest (Scripts/bluez-vm/run).
let inBlueZVM = ProcessInfo.processInfo.environment["BLUEZ_VM"] == "1"

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body`, failing if it takes longer than `limit` (a bound, not a delay).
func within<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestFailure("\(what) did not finish within \(limit)")
        }
        return value
    }
}

/// The next event matching `predicate`, within `limit`.
func nextEvent(
    _ events: AsyncStream<CardReaderEvent>, within limit: Duration, _ what: String,
    where predicate: @escaping @Sendable (CardReaderEvent) -> Bool
) async throws -> CardReaderEvent {
    try await within(limit, what) {
        for await event in events where predicate(event) { return event }
        throw TestFailure("the event stream ended before \(what)")
    }
}

/// Runs a guest helper found on PATH and returns its exit status, within `limit`; its
/// output goes to standard error (the guest's console). A ``ChildProcess``: the helper
/// starts with no signal blocked (a thread of Swift's executor blocks them all, and a
/// daemon the helper starts would ignore SIGTERM for the rest of the guest's life) and
/// with none of this process's descriptors (its D-Bus sockets among them). Waited for on a
/// thread of its own: the emulated reader needs the executor's threads meanwhile.
func run(_ arguments: [String], within limit: Duration) async throws -> Int32 {
    let child = try ChildProcess(
        arguments, in: FileManager.default.currentDirectoryPath, standardError: .appended(to: "/dev/stderr"))
    let deadline = ContinuousClock.now + limit
    let termination = try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(
                with: Result {
                    FileHandle.standardError.write(Data(try child.readToEnd(until: deadline)))
                    return try child.waitForExit(until: deadline)
                })
        }
    }
    guard case .exited(let status) = termination else {
        throw TestFailure("\(arguments.joined(separator: " ")) \(termination)")
    }
    return status
}

/// A connector whose links report every completed write, so a test can act right after
/// a command has reached the reader.
struct ObservedConnector: ReaderConnector {
    let base: any ReaderConnector
    let writes: AsyncStream<Int>.Continuation

    var readerDescription: String { base.readerDescription }

    func connect() async throws(LinkError) -> any ReaderLink {
        observed(try await base.connect())
    }

    private func observed(_ link: some ReaderLink) -> any ReaderLink {
        ObservedLink(base: link, writes: writes)
    }
}

struct ObservedLink<Base: ReaderLink>: ReaderLink {
    let base: Base
    let writes: AsyncStream<Int>.Continuation

    var maximumWriteLength: Int { get async { await base.maximumWriteLength } }
    var inbound: Base.Inbound { base.inbound }
    var security: LinkSecurity { base.security }

    func write(_ packet: [UInt8]) async throws(LinkError) {
        try await base.write(packet)
        writes.yield(packet.count)
    }

    func close() async { await base.close() }
}


/// Debug logs on standard error (the guest's console), set up once per process.
let testLogging: Void = LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = ProcessInfo.processInfo.environment["BLUEZ_TEST_LOG"] == "debug" ? .debug : .info
    return handler
}
