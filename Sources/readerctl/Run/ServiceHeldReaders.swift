import CardReaderKit
import CommandLineOutput

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The readers cardreaderd holds, as its `held-readers` list says (in
/// `$CARDREADERD_RUNTIME_DIRECTORY`, by default `/run/cardreaderd`): readerctl refuses
/// them, since a second owner's commands would interleave with the service's, and names the
/// service's own client instead. The list counts only while the daemon that wrote it holds
/// its lock: a daemon that died leaves nothing held.
enum ServiceHeldReaders {
    /// The error for `reader` (a name prefix or an address, as `--reader` takes it) if the
    /// service holds it; nil otherwise.
    static func refusal(for reader: String) -> LinkError? {
        guard let (name, _) = held().first(where: { overlaps($0.reader, reader) }) else { return nil }
        return LinkError(
            .heldByService, "\(reader) is held by cardreaderd, as \(name): a reader has one owner",
            fix: "go through the service: cardreaderctl --reader \(name) (its terminal client), or stop cardreaderd first")
    }

    /// The error for `--all` while the service holds any reader; nil when it holds none.
    static func refusalOfAll() -> LinkError? {
        let names = held().map(\.name)
        guard !names.isEmpty else { return nil }
        return LinkError(
            .heldByService, "cardreaderd holds \(names.joined(separator: ", ")): --all would take them from it",
            fix: "name the readers the service does not hold with --reader, use cardreaderctl for the others, or stop cardreaderd")
    }

    /// Whether two ways of naming a reader can name the same one: equal, or one a prefix
    /// of the other (names are matched by prefix), letters compared regardless of case.
    private static func overlaps(_ a: String, _ b: String) -> Bool {
        let (a, b) = (a.uppercased(), b.uppercased())
        return a.hasPrefix(b) || b.hasPrefix(a)
    }

    /// The list's entries, if a live daemon wrote it: (name, reader) pairs.
    private static func held() -> [(name: String, reader: String)] {
        let directory = getenv("CARDREADERD_RUNTIME_DIRECTORY").map { String(cString: $0) } ?? "/run/cardreaderd"
        guard let text = contents(of: directory + "/held-readers") else { return [] }
        let lines = text.split(separator: "\n")
        guard let header = lines.first, let lockPath = header.split(separator: "lock ").last.map(String.init),
            isLocked(lockPath)
        else { return [] }
        return lines.dropFirst().compactMap { line in
            let fields = line.split(separator: "\t")
            return fields.count >= 2 ? (String(fields[0]), String(fields[1])) : nil
        }
    }

    /// Whether a process holds `path`'s lock (the daemon, for its life).
    private static func isLocked(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    private static func contents(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
