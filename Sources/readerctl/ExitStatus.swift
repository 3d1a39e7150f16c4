import ArgumentParser

/// readerctl's exit statuses, as `--help` documents them.
enum ExitStatus {
    /// Everything worked (decode: every frame intact and decodable).
    static let success = ExitCode(0)
    /// decode: damage or an undecodable frame was found.
    static let damageFound = ExitCode(1)
    /// decode: an input could not be read or is not a recording.
    static let unreadableInput = ExitCode(2)
}
