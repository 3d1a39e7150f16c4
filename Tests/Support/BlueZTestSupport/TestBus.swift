import Dispatch
import Foundation
import TestEnvironment

#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` in a temporary directory, listening on a unix socket, with an
/// allow-everything policy (less the destinations `denying` names: a call to one of them
/// gets `AccessDenied`, as from a system bus whose policy does not grant it). Killed
/// (SIGKILL) by ``kill()``, or without waiting on deinit. Shared by the test targets that need a bus.
package final class TestBus: @unchecked Sendable {
    package let address: String
    private let process: Process
    private let directory: URL
    /// Signalled when Foundation has seen the daemon exit.
    private let exited = DispatchSemaphore(value: 0)

    /// Starts a daemon and returns once it listens. The daemon is waited for on a thread of
    /// its own, never on the cooperative pool the other tests' tasks share.
    package static func start(denying destinations: [String] = []) async throws -> TestBus {
        try await onThreadOfItsOwn { try TestBus(denying: destinations) }
    }

    /// Blocks until the daemon prints its address.
    private init(denying destinations: [String]) throws {
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
            \(destinations.map { "    <deny send_destination=\"\($0)\"/>" }.joined(separator: "\n"))
              </policy>
            </busconfig>
            """
        try xml.write(to: config, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--print-address", "--nofork", "--nopidfile"]
        let output = Pipe()
        process.standardOutput = output
        process.terminationHandler = { [exited] _ in exited.signal() }
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

    /// Kills the daemon abruptly (SIGKILL), as a crash would, and waits until Foundation has
    /// seen it exit (on a thread of its own): at most 10 s, as Foundation learns of the exit
    /// only when the last copy of a socket its child holds closes, and a copy held elsewhere
    /// must not hang the tests.
    package func kill() async {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        await onThreadOfItsOwn { [exited] in _ = exited.wait(timeout: .now() + 10) }
    }

    /// Kills the daemon without waiting: a deinit runs on whatever thread let go of the
    /// bus last, often one of the cooperative pool's few, which must not block.
    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }
}

extension TestBus {
    /// Whether `dbus-daemon` and `libdbus-1.so.3` are there (the tests that need them are
    /// skipped otherwise).
    package static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
            let library = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL)
        else { return false }
        dlclose(library)
        return true
    }()
}
