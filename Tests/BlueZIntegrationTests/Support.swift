import BLETransport
import CardReaderKit
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

/// Runs a program found on PATH and returns its exit status, within `limit`. (Spawned
/// with posix_spawn and reaped with waitpid: Foundation's Process missed the exit of a
/// script that starts a daemon.) The program starts with no signal blocked: a thread of
/// Swift's executor blocks them, and a daemon the program starts (dbus-daemon, bluetoothd)
/// would otherwise ignore SIGTERM for the rest of the guest's life.
func run(_ arguments: [String], within limit: Duration) async throws -> Int32 {
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let spawned = posix_spawnp(&pid, arguments[0], nil, &attributes, argv, environ)
    guard spawned == 0 else { throw TestFailure("cannot start \(arguments[0]): error \(spawned)") }
    let child = pid
    return try await within(limit, arguments.joined(separator: " ")) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: (status >> 8) & 0xFF)
            }
        }
    }
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
