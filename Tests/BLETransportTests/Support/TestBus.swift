import BLETransport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` in a temporary directory, listening on a unix socket, with an
/// allow-everything policy. Killed (SIGKILL) by ``stop()`` or on deinit.
final class TestBus: @unchecked Sendable {
    let address: String
    private let process: Process
    private let directory: URL

    init() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("crk-dbus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        let config = directory.appendingPathComponent("bus.conf")
        let xml = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow receive_sender="*"/>
                <allow eavesdrop="true"/>
              </policy>
            </busconfig>
            """
        try xml.write(to: config, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--print-address", "--nofork", "--nopidfile"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The daemon prints its address once it listens; EOF means it failed.
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        let line = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.isEmpty else {
            process.terminate()
            throw TestFailure("dbus-daemon did not print an address")
        }
        address = line
    }

    /// Kills the daemon abruptly (SIGKILL), as a crash would.
    func kill() {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` but fails if it takes longer than `seconds` (a bound, not a delay).
func within<T: Sendable>(
    _ seconds: Double = 5, _ what: String = "operation", _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestFailure("\(what) did not finish within \(seconds) s")
        }
        return value
    }
}

/// The next element of a stream, bounded in time; nil if the stream ended.
func next<Element: Sendable>(_ stream: AsyncStream<Element>, within seconds: Double = 5) async throws -> Element? {
    try await within(seconds, "waiting for the next \(Element.self)") {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}

/// A daemon plus two connections ("client" and "server"), torn down after `body`.
func withBus(
    _ body: (TestBus, DBusConnection, DBusConnection) async throws -> Void
) async throws {
    let bus = try TestBus()
    let client = try await DBusConnection.connect(address: bus.address)
    let server = try await DBusConnection.connect(address: bus.address)
    do {
        try await body(bus, client, server)
    } catch {
        await client.close()
        await server.close()
        throw error
    }
    await client.close()
    await server.close()
}

/// Expects `body` to throw a DBusError and returns it.
func expectDBusError<T>(_ body: () async throws -> T) async -> DBusError? {
    do {
        _ = try await body()
        Issue.record("expected a DBusError, got success")
        return nil
    } catch let error as DBusError {
        return error
    } catch {
        Issue.record("expected a DBusError, got \(error)")
        return nil
    }
}

/// A one-shot signal from a handler to the test ("the call has arrived").
final class Gate: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }
    func open() { continuation.yield() }
    func wait(within seconds: Double = 5) async throws {
        let stream = self.stream
        _ = try await within(seconds, "waiting for the gate") {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next() != nil
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests that start a private `dbus-daemon` and reach it through libdbus: on a
    /// machine without them (a bare Swift container) they are skipped, saying what to
    /// install. `.ci/run` installs both, so CI runs them.
    static var needsDBus: Self {
        .enabled(if: dbusIsInstalled, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus")
    }
}

private let dbusIsInstalled: Bool = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
        let library = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL)
    else { return false }
    dlclose(library)
    return true
}()

extension DBusError {
    /// The case, for tests that mean one kind of failure and not its wording.
    var kind: String {
        switch self {
        case .remote: "remote"
        case .timeout: "timeout"
        case .disconnected: "disconnected"
        case .cancelled: "cancelled"
        case .marshalling: "marshalling"
        case .connectionFailed: "connectionFailed"
        case .libraryUnavailable: "libraryUnavailable"
        }
    }
}
