#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file's bytes, read to its end: a regular file, or a pipe such as the `/dev/fd/63` of a
/// shell's process substitution (`readerctl decode <(…)`) or a named pipe, whose size no
/// stat(2) knows (a read that trusts the size finds nothing in them).
enum FileBytes {
    /// The whole file at `path` (its first `limit` bytes at least, when given); nil when it
    /// cannot be opened or read.
    static func contents(atPath path: String, limit: Int = .max) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return readToEnd(descriptor, limit: limit)
    }

    /// Everything `descriptor` gives up to its end, or once `limit` bytes are read; nil on
    /// a read error.
    static func readToEnd(_ descriptor: Int32, limit: Int = .max) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                bytes += buffer[..<count]
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                return nil
            }
        }
        return bytes
    }
}
