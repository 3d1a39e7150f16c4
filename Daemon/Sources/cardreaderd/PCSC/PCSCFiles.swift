import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The files `install` writes and `uninstall` removes. Each is written beside its place and
/// renamed over it: pcscd, which maps the driver it loaded, keeps its copy intact.
enum PCSCFiles {
    static func install(library source: String, at destination: String) throws {
        guard let bytes = FileManager.default.contents(atPath: source) else {
            throw ValidationError("cannot read the driver \(source)")
        }
        try replace(destination, with: bytes, mode: 0o644)
    }

    /// Writes `entry` in `directory`; returns its path.
    static func write(_ entry: ReaderConfEntry, in directory: String) throws -> String {
        let path = directory + "/" + entry.fileName
        try replace(path, with: Data(entry.text.utf8), mode: 0o644)
        return path
    }

    /// Writes `configuration` to `file` as JSON, keeping the file's mode.
    static func write(_ configuration: DaemonConfiguration, to file: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var info = stat()
        let mode = stat(file, &info) == 0 ? info.st_mode & 0o7777 : 0o644
        try replace(file, with: try encoder.encode(configuration) + Data("\n".utf8), mode: mode)
    }

    /// The entries `install` wrote in `directory`.
    static func entries(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(ReaderConfEntry.filePrefix) }.map { directory + "/" + $0 }.filter { path in
            (try? String(contentsOfFile: path, encoding: .utf8))?.hasPrefix(ReaderConfEntry.marker) ?? false
        }.sorted()
    }

    static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw ValidationError("cannot remove \(path): \(String(cString: strerror(errno)))")
        }
    }

    private static func replace(_ path: String, with bytes: Data, mode: mode_t) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot make \(directory): \(error)")
        }
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: bytes), chmod(temporary, mode) == 0,
            rename(temporary, path) == 0
        else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ValidationError("cannot write \(path): \(reason)")
        }
    }
}
