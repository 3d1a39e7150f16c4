#if canImport(Glibc)  // ChildProcess
import ChildProcessSupport
import Glibc
import TestEnvironment
import Testing

/// The harness that runs lrzsz for the interoperability tests.
struct ChildProcessTests {
    /// A child gets its standard streams and nothing else of this process's: a descriptor
    /// held here without close-on-exec (as Foundation's `Process` holds the socket whose
    /// closing tells it that its child exited) would otherwise live on in the child, and a
    /// test waiting for that other child's end would wait for this one's too.
    @Test func aChildInheritsOnlyItsStandardStreams() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        #expect(fcntl(ends[1], F_GETFD) & FD_CLOEXEC == 0)
        // ls lists its own descriptors: what it inherited, and the directory it reads (3).
        let child = try ChildProcess(["/bin/ls", "/proc/self/fd"], in: "/")
        // A bound, not a delay: ls ends within milliseconds.
        let deadline = ContinuousClock.now + .seconds(10)
        let (output, ended) = try await onThreadOfItsOwn {
            (try child.readToEnd(until: deadline), try child.waitForExit(until: deadline))
        }
        let listing = String(decoding: output, as: UTF8.self)
        #expect(ended == .exited(0))
        let descriptors = Set(listing.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) })
        #expect(descriptors.isSubset(of: [0, 1, 2, 3]), "inherited: \(descriptors.subtracting([0, 1, 2, 3]).sorted())")
    }
}
#endif
