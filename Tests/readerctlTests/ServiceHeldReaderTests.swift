import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A reader cardreaderd holds has one owner: readerctl refuses it (exit 7), naming the
/// service and its client, while the daemon that wrote `held-readers` holds its lock; the
/// list of a daemon that died counts for nothing.
@Suite struct ServiceHeldReaderTests {
    /// A runtime folder with a held-readers list naming `VPOS3356-1A2B` as `lane-1`, and a
    /// lock file; `locked` holds its lock, as a running daemon does.
    static func runtimeDirectory(locked: Bool) throws -> (directory: String, lock: Int32) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cardreaderd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let lock = "\(directory)/cardreaderd.sock.lock"
        try "# cardreaderd holds these readers; lock \(lock)\nlane-1\tVPOS3356-1A2B\thci1\n"
            .write(toFile: "\(directory)/held-readers", atomically: true, encoding: .utf8)
        let descriptor = open(lock, O_RDWR | O_CREAT, 0o644)
        if locked { #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0) }
        return (directory, descriptor)
    }

    @Test(arguments: [
        ["info", "--reader", "VPOS3356-1A2B"], ["swipe", "--reader", "VPOS3356"], ["pair", "--reader", "VPOS3356-1A2B"],
        ["info", "--all"], ["info", "--reader", "VPOS3356-0001", "--reader", "VPOS3356-1A2B"],
    ])
    func aReaderTheServiceHoldsIsRefused(arguments: [String]) async throws {
        let (directory, lock) = try Self.runtimeDirectory(locked: true)
        defer { close(lock) }
        let result = try await ReaderctlProcess.run(arguments, environment: ["CARDREADERD_RUNTIME_DIRECTORY": directory])
        #expect(result.status == 7, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains("held by cardreaderd") || result.standardError.contains("cardreaderd holds lane-1"))
        #expect(result.standardError.contains("cardreaderctl"))
    }

    /// The list of a daemon that is gone (nobody holds the lock) holds nothing: readerctl
    /// goes on to Bluetooth (and, with no bus here, fails as it would without the list).
    @Test func aDeadDaemonsListHoldsNothing() async throws {
        let (directory, lock) = try Self.runtimeDirectory(locked: false)
        defer { close(lock) }
        let result = try await ReaderctlProcess.run(
            ["info", "--reader", "VPOS3356-1A2B", "--connect-timeout", "1"], environment: ["CARDREADERD_RUNTIME_DIRECTORY": directory])
        #expect(!result.standardError.contains("cardreaderd"), "\(result.standardError)")
        #expect(result.status != 7)
    }
}
