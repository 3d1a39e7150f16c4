#if canImport(Glibc)
import Glibc
#endif

/// The daemon's Unix socket, bound by the daemon itself so that its owner, group and mode
/// are set before anyone can connect, and so that one daemon serves it: an exclusive lock
/// on `PATH.lock`, held for the daemon's life, guards it. A socket left by a daemon that
/// died is replaced; a live daemon's never is.
final class UnixSocket {
    /// The listening socket, ready for the transport (which takes it over).
    let descriptor: Int32
    let path: String
    private let lock: Int32

    /// Binds `path` with `mode`, owned by `group` when given. Fails `alreadyRunning` when
    /// another daemon holds the lock.
    init(path: String, mode: mode_t, group: gid_t?) throws(DaemonError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty, mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw .socket("cannot create \(directory): \(Self.reason())")
        }
        lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw .socket("cannot open \(path).lock: \(Self.reason())") }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.holder(of: lock)
            close(lock)
            throw .alreadyRunning(
                "another cardreaderd serves \(path)\(holder.map { " (pid \($0))" } ?? ""): one daemon owns the readers; stop it first, or give this one --socket")
        }
        do throws(DaemonError) {
            descriptor = try Self.bind(path, mode: mode, group: group)
        } catch {
            close(lock)
            throw error
        }
        self.path = path
        Self.record(pid: getpid(), in: lock)
    }

    /// Unlinks the socket and lets go of the lock (the transport has closed the socket).
    func remove() {
        unlink(path)
        close(lock)
    }

    private static func bind(_ path: String, mode: mode_t, group: gid_t?) throws(DaemonError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .socket("\(path) is longer than a Unix socket's path may be (\(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        // Under the lock: whatever is at the path is a dead daemon's socket, or not ours.
        var existing = stat()
        if lstat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT == S_IFSOCK else { throw .socket("\(path) exists and is not a socket: not removed") }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket("socket(): \(reason())") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let why = reason()
            close(descriptor)
            throw .socket("cannot bind \(path): \(why)")
        }
        // Mode and group before listen(): no client can connect before they hold.
        guard chmod(path, mode) == 0, group.map({ chown(path, uid_t.max, $0) == 0 }) ?? true else {
            let why = reason()
            close(descriptor)
            unlink(path)
            throw .socket("cannot set \(path)'s mode or group: \(why)")
        }
        guard listen(descriptor, 128) == 0 else {
            let why = reason()
            close(descriptor)
            unlink(path)
            throw .socket("cannot listen on \(path): \(why)")
        }
        return descriptor
    }

    private static func record(pid: pid_t, in lock: Int32) {
        let text = Array("\(pid)\n".utf8)
        _ = ftruncate(lock, 0)
        _ = text.withUnsafeBytes { pwrite(lock, $0.baseAddress, $0.count, 0) }
    }

    private static func holder(of lock: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(lock, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).filter(\.isNumber))
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
