#if canImport(Glibc)
import Dispatch
import Foundation
import Glibc
import ProcessSpawning

/// A program run with its standard input and output (and, if asked, its standard error) on
/// pipes to this process: readerctl, dbus-daemon, lrzsz. Spawned with `posix_spawn`
/// (through `/bin/sh`, which enters the working directory and `exec`s the program), reaped
/// by a thread of its own; every wait takes a deadline, and a child still running when its
/// process object goes away is killed.
///
/// Not Foundation's `Process`: in the toolchain this suite runs on, `Process.run()` copies
/// each `/proc/self/fd` entry's whole 256-byte name buffer and reads past glibc's buffer when
/// an entry ends a page (swift-corelibs-foundation PR 5472): the test process crashed with
/// SIGSEGV in one run in a few dozen while many readerctl runs were being started.
///
/// `@unchecked Sendable` so that one thread reads the child's output while another writes
/// its input or signals it: `pid` and the output descriptors never change after `init`, and
/// the input's descriptor, which ``closeInput()`` closes, and the reaper's state are behind
/// locks. One thread at a time reads.
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

    /// Where the child's standard error goes.
    public enum StandardError: Sendable {
        /// Appended to the file at this path, created if need be (`/dev/null` discards it).
        case appended(to: String)
        /// To a pipe that ``readEither(until:)`` reads beside standard output.
        case piped
    }

    /// One of the child's output streams.
    public enum Stream: Sendable {
        case standardOutput
        case standardError
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    private static let spawning = NSLock()

    public let pid: pid_t
    /// Our end of the child's standard input (non-blocking), -1 once closed.
    private let input: Descriptor
    /// Our end of the child's standard output (non-blocking).
    private let output: Int32
    /// Our end of the child's standard error (non-blocking) when it is piped, else -1.
    private let errorOutput: Int32
    /// The output streams not yet at end of file; only the reading thread touches it.
    private var open: Set<Stream>
    private let reaper = Reaper()

    /// Starts `arguments` (the program's path first) in `directory`, with `environment`
    /// (this process's own when nil) and its standard error where `standardError` says.
    public init(
        _ arguments: [String], in directory: String, environment: [String: String]? = nil,
        standardError: StandardError = .appended(to: "/dev/null")
    ) throws {
        // A write to a child that has gone must fail with EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)

        // Close-on-exec everywhere, so no other child inherits these ends; the dup2s below
        // give this child its own copies without the flag. (Swift sees no pipe2, so the flag
        // comes after pipe(), and spawns take turns lest one start in between.)
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        let toChild = try Self.makePipe()
        let fromChild: [Int32]
        do { fromChild = try Self.makePipe() } catch {
            toChild.forEach { close($0) }
            throw error
        }
        var errorFromChild: [Int32] = [-1, -1]
        if case .piped = standardError {
            do { errorFromChild = try Self.makePipe() } catch {
                (toChild + fromChild).forEach { close($0) }
                throw error
            }
        }
        defer { [toChild[0], fromChild[1], errorFromChild[1]].filter { $0 >= 0 }.forEach { close($0) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        switch standardError {
        case .appended(let path): posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        case .piped: posix_spawn_file_actions_adddup2(&actions, errorFromChild[1], 2)
        }
        // Nothing else: a descriptor held here would keep another process's pipe or socket
        // open, and whoever waits for that pipe's end would wait for this child too.
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
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned =
            if var envp { posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, &envp) } else {
                posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
            }
        guard spawned == 0 else {
            [toChild[1], fromChild[0], errorFromChild[0]].filter { $0 >= 0 }.forEach { close($0) }
            throw Failure(description: "cannot start \(arguments.joined(separator: " ")): \(Self.errorText(spawned))")
        }
        self.pid = pid
        input = Descriptor(toChild[1])
        output = fromChild[0]
        errorOutput = errorFromChild[0]
        open = errorOutput >= 0 ? [.standardOutput, .standardError] : [.standardOutput]
        for descriptor in [toChild[1], output, errorOutput] where descriptor >= 0 {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }

        let reaper = reaper, child = pid
        Thread.detachNewThread {
            // Waits for the end without reaping, then reaps under the reaper's lock: the pid
            // stays the child's for as long as ``send(_:)`` may use it.
            var info = siginfo_t()
            while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
            reaper.reap {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                return status
            }
        }
    }

    deinit {
        send(SIGKILL)  // unless reaped; the reaper thread reaps it
        input.close()
        close(output)
        if errorOutput >= 0 { close(errorOutput) }
    }

    /// Writes all of `bytes` to the child's standard input by `deadline`.
    public func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws {
        var offset = 0
        while offset < bytes.count {
            let written = try input.using { descriptor -> Int in
                guard descriptor >= 0 else { throw Failure(description: "the child's standard input is closed") }
                guard try Self.wait(for: descriptor, POLLOUT, until: deadline) else {
                    throw Failure(description: "the child took no input for \(bytes.count - offset) bytes by the deadline")
                }
                return bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Failure(description: "write to the child: \(Self.errorText())")
            }
            offset += written
        }
    }

    /// Closes the child's standard input: it reads end of file.
    public func closeInput() {
        input.close()
    }

    /// What the child has written to its standard output, as soon as there is some: empty
    /// if nothing came by `deadline`, nil at end of file.
    public func read(until deadline: ContinuousClock.Instant) throws -> [UInt8]? {
        guard open.contains(.standardOutput) else { return nil }
        let bytes = try Self.read(output, until: deadline)
        if bytes == nil { open.remove(.standardOutput) }
        return bytes
    }

    /// What the child has written to either output stream, as soon as there is some, and
    /// which stream it came on: empty bytes if nothing came by `deadline`, nil once every
    /// stream this process reads has ended.
    public func readEither(until deadline: ContinuousClock.Instant) throws -> (Stream, [UInt8])? {
        while !open.isEmpty {
            let streams: [(Stream, Int32)] = [(.standardOutput, output), (.standardError, errorOutput)]
                .filter { open.contains($0.0) }
            var entries = streams.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), Self.milliseconds(until: deadline))
            if ready < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "poll: \(Self.errorText())")
            }
            guard ready > 0, let index = entries.firstIndex(where: { $0.revents != 0 }) else {
                return (streams[0].0, [])
            }
            let (stream, descriptor) = streams[index]
            guard let bytes = try Self.read(descriptor, until: deadline) else {
                open.remove(stream)
                continue
            }
            if !bytes.isEmpty { return (stream, bytes) }
        }
        return nil
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

    /// How the child ended, or nil while it runs.
    public var termination: Termination? {
        reaper.status.map(Self.termination)
    }

    /// Sends `signal` to the child unless it has been reaped.
    public func send(_ signal: Int32) {
        reaper.whileRunning { Glibc.kill(pid, signal) }
    }

    /// Kills the child (SIGKILL) unless it has been reaped.
    public func kill() {
        send(SIGKILL)
    }

    // MARK: - Private

    private static func makePipe() throws -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Failure(description: "pipe: \(errorText())") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    /// What there is on `descriptor` once it is readable: empty if nothing came by
    /// `deadline`, nil at end of file.
    private static func read(_ descriptor: Int32, until deadline: ContinuousClock.Instant) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            guard try wait(for: descriptor, POLLIN, until: deadline) else { return [] }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Failure(description: "read from the child: \(errorText())")
            }
            return count == 0 ? nil : Array(buffer.prefix(count))
        }
    }

    /// Whether `fd` is ready for `events` (or has hung up) by `deadline`.
    private static func wait(for fd: Int32, _ events: Int32, until deadline: ContinuousClock.Instant) throws -> Bool {
        while true {
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            let result = poll(&entry, 1, milliseconds(until: deadline))
            if result > 0 { return true }
            if result == 0 { return false }
            if errno != EINTR { throw Failure(description: "poll: \(errorText())") }
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

    /// A descriptor that one thread may close while another uses it.
    private final class Descriptor: @unchecked Sendable {
        private let lock = NSLock()
        private var descriptor: Int32

        init(_ descriptor: Int32) { self.descriptor = descriptor }

        /// Runs `body` with the descriptor (-1 once closed), which stays open meanwhile.
        func using<T>(_ body: (Int32) throws -> T) rethrows -> T {
            try lock.withLock { try body(descriptor) }
        }

        func close() {
            lock.withLock {
                if descriptor >= 0 { Glibc.close(descriptor) }
                descriptor = -1
            }
        }
    }

    /// The child's wait status, set once by the thread that reaps it.
    private final class Reaper: @unchecked Sendable {
        let exited = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var recorded: Int32?

        var status: Int32? { lock.withLock { recorded } }

        /// Records the status `reap` returns; nobody signals the child meanwhile.
        func reap(_ reap: () -> Int32) {
            lock.withLock { recorded = reap() }
            exited.signal()
        }

        /// Runs `body` unless the child has been reaped, and keeps it from being reaped
        /// meanwhile, so that a signal cannot reach another process given the same pid.
        func whileRunning(_ body: () -> Void) {
            lock.withLock { if recorded == nil { body() } }
        }
    }
}
#endif
