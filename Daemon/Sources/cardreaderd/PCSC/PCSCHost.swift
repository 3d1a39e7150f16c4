import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What `install` reads of the host: pcscd running or not, as which user, who may reach its
/// socket; cardreaderd running on a socket.
enum PCSCHost {
    /// pcscd's process, from its pid file, when it runs.
    static func pcscd(_ paths: PCSCPaths) -> (pid: Int32, user: String)? {
        guard let pid = pid(in: paths.pcscdPIDFile), kill(pid, 0) == 0 || errno == EPERM else { return nil }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
            let uid = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap({ UInt32($0) })
        else { return (pid, "root") }
        return (pid, PeerCredentials.userName(of: uid))
    }

    /// Who may reach pcscd's socket, in words: its mode, owner and group.
    static func socketReach(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return "\(path) is not there now (pcscd makes it, or systemd's pcscd.socket, with the mode that decides who reaches it)"
        }
        let owner = PeerCredentials.userName(of: info.st_uid)
        let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? String(info.st_gid)
        let mode = info.st_mode & 0o777
        let modeText = String(mode, radix: 8)
        if mode & 0o002 != 0 {
            return "\(path) is mode \(modeText), owned by \(owner):\(group): every local user can reach it"
        }
        if mode & 0o020 != 0 {
            return "\(path) is mode \(modeText), owned by \(owner):\(group): \(owner) and the group \(group) can reach it"
        }
        return "\(path) is mode \(modeText), owned by \(owner):\(group): only \(owner) can reach it"
    }

    /// The cardreaderd serving `socket`, from the pid its lock file holds, when the lock is held.
    static func cardreaderd(serving socket: String) -> Int32? {
        let lockPath = socket + ".lock"
        let descriptor = open(lockPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A lock nobody holds is a daemon gone.
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return pid(in: lockPath)
    }

    private static func pid(in file: String) -> Int32? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        return Int32(String(text.filter(\.isNumber)))
    }
}
