#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Standard error and standard input, unbuffered, without Foundation.
enum StandardStreams {
    /// Writes `text` to standard error at once (prompts, errors, progress).
    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Everything on standard input, up to its end (what came before a read error).
    static func readInput() -> [UInt8] {
        FileBytes.readToEnd(STDIN_FILENO) ?? []
    }
}

