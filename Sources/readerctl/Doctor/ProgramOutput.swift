#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ProcessSpawning

/// Runs a program briefly and returns what it printed (standard output and error), e.g.
/// `bluetoothd --version`. Bounded: a program still running at the deadline is killed.
/// Blocks the calling thread for at most that long.
enum ProgramOutput {
    /// The output, without surrounding white space; nil if the program could not be
    /// started, did not end within `timeout`, or exited with a failure status.
    static func run(_ path: String, _ arguments: [String], within timeout: Duration = .seconds(2)) -> String? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        closeOtherDescriptors(in: &actions)
        let argv = ([path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv + [nil], environ)
        close(writeEnd)
        guard spawned == 0 else { return nil }

        let deadline = ContinuousClock.now + timeout
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        reading: while output.count < 65_536 {
            let left = deadline - .now
            guard left > .zero else { break }
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 2000))
            let ready = poll(&poller, 1, max(milliseconds, 1))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(readEnd, &buffer, buffer.count)
            switch count {
            case 1...: output += buffer[..<count]
            case 0: break reading
            default: if errno != EINTR { break reading }
            }
        }
        // The output ends when the program closes it, a moment before it exits.
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        while reaped == 0, ContinuousClock.now < deadline {
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
            reaped = waitpid(pid, &status, WNOHANG)
        }
        if reaped == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            return nil
        }
        // WIFEXITED and WEXITSTATUS are macros: exited normally when the signal bits are zero.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { return nil }
        return String(decoding: output, as: UTF8.self).trimmedLines
    }
}
