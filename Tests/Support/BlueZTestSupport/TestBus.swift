import ChildProcessSupport
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
    private let daemon: ChildProcess
    private let directory: URL

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
        daemon = try ChildProcess(
            ["/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--print-address", "--nofork", "--nopidfile"],
            in: directory.path)
        // The daemon prints its address once it listens; end of file means it failed. A
        // bound for a hung daemon, not a timing: it listens within milliseconds.
        let deadline = ContinuousClock.now + .seconds(30)
        var data: [UInt8] = []
        while !data.contains(UInt8(ascii: "\n")), let chunk = try daemon.read(until: deadline), !chunk.isEmpty {
            data += chunk
        }
        let line = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard data.contains(UInt8(ascii: "\n")), !line.isEmpty else {
            daemon.kill()
            throw TestFailure("dbus-daemon did not print an address within 30 s: \(daemon.termination.map { "\($0)" } ?? "still running")")
        }
        address = line
    }

    /// Kills the daemon abruptly (SIGKILL), as a crash would, and waits until it has been
    /// reaped (on a thread of its own).
    package func kill() async {
        daemon.kill()
        await onThreadOfItsOwn { [daemon] in _ = try? daemon.waitForExit(until: .now + .seconds(10)) }
    }

    /// Kills the daemon without waiting: a deinit runs on whatever thread let go of the
    /// bus last, often one of the cooperative pool's few, which must not block.
    deinit {
        daemon.kill()
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
