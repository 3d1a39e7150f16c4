import ArgumentParser
import CommandLineOutput
import FoundationEssentials

/// A file named on the command line — a firmware image, a card file, a recording or capture,
/// an expected file, a `--record` output — checked before any reader is touched. A problem is
/// one line naming the file and what is wrong, a `fix:` line, and the command's exit status.
struct NamedFile: Sendable {
    /// The path as the user gave it.
    let path: String
    /// What the file is, for messages: `firmware image`, `recording`.
    let role: String

    /// What stands in the way, and what to do about it.
    struct Problem: Sendable, Hashable, CustomStringConvertible {
        var description: String
        var fix: String
    }

    /// Why the file cannot be read, or nil when it can: it must exist, be a file (not a
    /// directory) and be readable.
    var readProblem: Problem? {
        let files = FileManager.default
        var isDirectory = false
        guard !path.isEmpty else {
            return Problem(description: "no \(role) named (an empty path)", fix: "give the \(role)'s path")
        }
        guard files.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return Problem(
                description: "cannot read the \(role) \(path): no such file",
                fix: "check the path; a relative path starts from \(files.currentDirectoryPath)")
        }
        guard !isDirectory else {
            return Problem(
                description: "cannot read the \(role) \(path): it is a directory",
                fix: "name a file in it, e.g. \(Self.example(in: path, for: role))")
        }
        guard files.isReadableFile(atPath: path) else {
            return Problem(
                description: "cannot read the \(role) \(path): permission denied",
                fix: "make it readable to this user (ls -l \(path); chmod u+r \(path))")
        }
        return nil
    }

    /// Why the file cannot be created or replaced, or nil when it can: the path must not be
    /// a directory, and its directory must exist and take new files (a file is written
    /// whole beside the old one, then put in its place).
    var writeProblem: Problem? {
        let files = FileManager.default
        var isDirectory = false
        guard !path.isEmpty else {
            return Problem(description: "no \(role) file named (an empty path)", fix: "give a path for the \(role)")
        }
        if path.hasSuffix("/") || (files.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory) {
            return Problem(
                description: "cannot write the \(role) to \(path): it is a directory",
                fix: "name a file in it, e.g. \(path.hasSuffix("/") ? path : path + "/")\(role.replacing(" ", with: "-")).txt")
        }
        let directory = Self.directory(of: path)
        guard files.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory else {
            return Problem(
                description: "cannot write the \(role) to \(path): its directory \(directory) does not exist",
                fix: "create it (mkdir -p \(directory)) or name a file in a directory that exists")
        }
        guard files.isWritableFile(atPath: directory) else {
            return Problem(
                description: "cannot write the \(role) to \(path): \(directory) does not take new files (permission denied)",
                fix: "name a file in a directory this user can write, e.g. /tmp")
        }
        return nil
    }

    /// Reports the read problem, if any, and exits with `status`.
    func checkReadable(exitStatus status: ExitStatus) throws(ExitCode) {
        if let problem = readProblem { throw Self.report(problem, status) }
    }

    /// Reports the write problem, if any, and exits with `status`.
    func checkWritable(exitStatus status: ExitStatus) throws(ExitCode) {
        if let problem = writeProblem { throw Self.report(problem, status) }
    }

    /// The whole file; a problem is reported and ends the command with `status`.
    func read(exitStatus status: ExitStatus) throws(ExitCode) -> [UInt8] {
        try checkReadable(exitStatus: status)
        guard let contents = FileBytes.contents(atPath: path) else {
            throw Self.report(
                Problem(description: "cannot read the \(role) \(path)", fix: "check that it is a regular file this user can read"),
                status)
        }
        return contents
    }

    private static func report(_ problem: Problem, _ status: ExitStatus) -> ExitCode {
        ErrorReport.write(problem.description, fix: problem.fix)
        return status.exitCode
    }

    /// The directory a path names a file in: `.` for a bare name.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// A file of the right kind in `directory`, for a fix: the first whose extension suits
    /// `role`, else `directory/FILE`.
    private static func example(in directory: String, for role: String) -> String {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let suffixes =
            role.contains("firmware") ? [".vfw"] : role.contains("card") ? [".json"]
            : role.contains("expected") ? [".jsonl"] : [".txt", ".btsnoop", ".log"]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        guard let name = names.first(where: { name in suffixes.contains { name.hasSuffix($0) } }) else { return base + "FILE" }
        return base + name
    }
}
