#if canImport(Glibc)
import Glibc
#endif

/// `held-readers`, beside the socket: which Bluetooth readers this daemon holds, so that
/// `readerctl` refuses them (a second owner would interleave its commands with the
/// daemon's) and names the service and its client instead. Its first line names the lock
/// file; a reader of the list takes the list as current only while that lock is held.
///
/// ```text
/// # cardreaderd holds these readers; lock /run/cardreaderd/cardreaderd.sock.lock
/// lane-1	VPOS3356-1A2B	hci1
/// ```
struct HeldReadersFile {
    /// A Bluetooth reader the daemon holds: its name, what names it (a prefix or an
    /// address), and its adapter.
    struct Entry {
        var name: String
        var reader: String
        var adapter: String?
    }

    let path: String

    /// Beside `socketPath`.
    init(besideSocket socketPath: String) {
        path = String(socketPath[..<(socketPath.lastIndex(of: "/") ?? socketPath.startIndex)]) + "/held-readers"
    }

    /// Writes the list (removes it when `entries` is empty).
    func write(_ entries: [Entry], lock: String) {
        guard !entries.isEmpty else {
            remove()
            return
        }
        let text = (["# cardreaderd holds these readers; lock \(lock)"]
            + entries.map { "\($0.name)\t\($0.reader)\t\($0.adapter ?? "-")" }).joined(separator: "\n") + "\n"
        let temporary = path + ".new"
        let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { return }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
        close(file)
        if written == bytes.count { rename(temporary, path) } else { unlink(temporary) }
    }

    func remove() { unlink(path) }
}
