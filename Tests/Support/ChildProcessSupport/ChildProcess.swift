#if canImport(Glibc)
import Dispatch
import Foundation
import Glibc
import ProcessSpawning

/// A program run with its standard input and output on pipes to this process, for tests
/// that talk to another implementation byte by byte. Spawned with `posix_spawn` (through
/// `/bin/sh`, which enters the working directory and `exec`s the program), reaped by a
/// thread of its own; every wait takes a deadline, and a child still running when its
/// process object goes away is killed.
///
/// Shared by the test targets that drive an independent implementation (lrzsz) as a child
/// process. `@unchecked Sendable` so that one thread reads the child's output while a task
/// writes its input: `pid` and the descriptors never change after `init`, the reaper's
/// state is behind its lock, and each descriptor has one user.
public final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    private static let spawning = NSLock()

    public let pid: pid_t
    /// Our end of the child's standard input (non-blocking).
    private let input: Int32
    /// Our end of the child's standard output (non-blocking).
    private let output: Int32
    private let reaper = Reaper()

    /// Starts `arguments` (the program's path first) in `directory`, its standard error
    /// appended to `standardError`.
    public init(_ arguments: [String], in directory: String, standardError: String = "/dev/null") throws {
        // A write to a child that has gone must fail with EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)

        // Close-on-exec everywhere, so no other child inherits these ends; the dup2s below
        // give this child its own copies without the flag. (Swift sees no pipe2, so the flag
        // comes after pipe(), and spawns take turns lest one start in between.)
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw Failure(description: "pipe: \(Self.errorText())") }
        guard pipe(&fromChild) == 0 else {
            let error = Self.errorText()
            close(toChild[0]); close(toChild[1])
            throw Failure(description: "pipe: \(error)")
        }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer {
            close(toChild[0])
            close(fromChild[1])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // Nothing else: a descriptor held here would keep another process's pipe or socket
        // open (Foundation learns that a child it started has exited when one closes).
        closeOtherDescriptors(in: &actions)

        // The child starts with default SIGPIPE handling and no blocked signals, whatever
        // this process has set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), none = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        // sh -c 'cd -- "$0" && exec "$@"' directory program arguments…: no quoting needed.
        let shell = ["/bin/sh", "-c", "cd -- \"$0\" && exec \"$@\"", directory] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = shell.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw Failure(description: "cannot start \(arguments.joined(separator: " ")): \(Self.errorText(spawned))")
        }
        self.pid = pid
        input = toChild[1]
        output = fromChild[0]
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)

        let reaper = reaper, child = pid
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            reaper.record(status)
        }
    }

    deinit {
        if reaper.status == nil { Glibc.kill(pid, SIGKILL) }  // the reaper thread reaps it
        close(input)
        close(output)
    }

    /// Writes all of `bytes` to the child's standard input by `deadline`.
    public func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws {
        var offset = 0
        while offset < bytes.count {
            guard try wait(for: input, POLLOUT, until: deadline) else {
                throw Failure(description: "the child took no input for \(bytes.count - offset) bytes by the deadline")
            }
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Failure(description: "write to the child: \(Self.errorText())")
            }
            offset += written
        }
    }

    /// What the child has written to its standard output, as soon as there is some: empty
    /// if nothing came by `deadline`, nil at end of file.
    public func read(until deadline: ContinuousClock.Instant) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            guard try wait(for: output, POLLIN, until: deadline) else { return [] }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Failure(description: "read from the child: \(Self.errorText())")
            }
            return count == 0 ? nil : Array(buffer.prefix(count))
        }
    }

    /// Everything the child writes to its standard output until it closes it, by `deadline`.
    public func readToEnd(until deadline: ContinuousClock.Instant) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let more = try read(until: deadline) {
            guard !more.isEmpty else { throw Failure(description: "standard output still open at the deadline") }
            bytes += more
        }
        return bytes
    }

    /// How the child ended, by `deadline`; a child still running then is killed, and
    /// this throws.
    public func waitForExit(until deadline: ContinuousClock.Instant) throws -> Termination {
        if let status = reaper.status { return Self.termination(status) }
        if reaper.exited.wait(timeout: .now() + Self.dispatchInterval(until: deadline)) == .timedOut {
            kill()
            _ = reaper.exited.wait(timeout: .now() + .seconds(5))
            throw Failure(description: "the child was still running at the deadline (killed)")
        }
        return Self.termination(reaper.status ?? 0)
    }

    /// Kills the child (SIGKILL) unless it has been reaped.
    public func kill() {
        if reaper.status == nil { Glibc.kill(pid, SIGKILL) }
    }

    // MARK: - Private

    /// Whether `fd` is ready for `events` (or has hung up) by `deadline`.
    private func wait(for fd: Int32, _ events: Int32, until deadline: ContinuousClock.Instant) throws -> Bool {
        while true {
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            let result = poll(&entry, 1, Self.milliseconds(until: deadline))
            if result > 0 { return true }
            if result == 0 { return false }
            if errno != EINTR { throw Failure(description: "poll: \(Self.errorText())") }
        }
    }

    private static func errorText(_ number: Int32 = errno) -> String {
        "errno \(number) (\(String(cString: strerror(number))))"
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = max(.zero, deadline - .now).components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    private static func dispatchInterval(until deadline: ContinuousClock.Instant) -> DispatchTimeInterval {
        .milliseconds(Int(milliseconds(until: deadline)))
    }

    private static func termination(_ status: Int32) -> Termination {
        status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    /// The child's wait status, set once by the thread that reaps it.
    private final class Reaper: @unchecked Sendable {
        let exited = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var recorded: Int32?

        var status: Int32? { lock.withLock { recorded } }

        func record(_ status: Int32) {
            lock.withLock { recorded = status }
            exited.signal()
        }
    }
}
#endif
