#if canImport(Glibc)  // ChildProcess
import ChildProcessSupport
import Glibc
import TestEnvironment
import Testing

/// The harness that runs lrzsz, readerctl and dbus-daemon for the tests.
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

    /// With its standard error piped, a child's two streams arrive apart, each in order; it
    /// sees the environment given and nothing of this process's.
    @Test func theStreamsArriveApartAndTheEnvironmentIsTheOneGiven() async throws {
        let script = "echo one; echo two >&2; echo \"$PROBE${HOME:-}\"; echo three >&2"
        let child = try ChildProcess(
            ["/bin/sh", "-c", script], in: "/", environment: ["PROBE": "given", "PATH": "/usr/bin:/bin"],
            standardError: .piped)
        child.closeInput()
        let deadline = ContinuousClock.now + .seconds(10)  // a bound: sh ends within milliseconds
        let (output, error, ended) = try await onThreadOfItsOwn {
            var output = "", error = ""
            while let (stream, bytes) = try child.readEither(until: deadline) {
                try #require(!bytes.isEmpty, "the streams were still open at the deadline")
                if stream == .standardOutput { output += String(decoding: bytes, as: UTF8.self) } else {
                    error += String(decoding: bytes, as: UTF8.self)
                }
            }
            return (output, error, try child.waitForExit(until: deadline))
        }
        #expect(output == "one\ngiven\n")
        #expect(error == "two\nthree\n")
        #expect(ended == .exited(0))
    }

    /// A child that a signal ends is reported as signalled, not as an exit status: a test
    /// expecting readerctl's own 130 must not pass when SIGINT killed it outright.
    @Test func aSignalledChildIsReportedAsSignalled() async throws {
        let child = try ChildProcess(["/bin/sleep", "60"], in: "/")
        child.send(SIGTERM)
        let ended = try await onThreadOfItsOwn { try child.waitForExit(until: .now + .seconds(10)) }
        #expect(ended == .signalled(SIGTERM))
        child.send(SIGTERM)  // reaped: nothing is sent
    }
}
#endif
