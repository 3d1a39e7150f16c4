/// A failure for a person, on standard error: `readerctl: <what happened>`, then, when the
/// library knows what to do about it, `  fix: <what to do>`.
enum ErrorReport {
    static func write(_ description: String, fix: String?) {
        StandardStreams.writeError("readerctl: \(description)\n" + (fix.map { "  fix: \($0)\n" } ?? ""))
    }
}
