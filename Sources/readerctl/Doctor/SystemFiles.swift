#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ProcessSpawning

/// Small reads of the kernel's files (/proc, /sys), whose sizes `stat` does not give:
/// read to the end, at most 64 KiB.
enum SystemFiles {
    /// The file's contents, or nil if it cannot be read.
    static func contents(of path: String) -> [UInt8]? {
        FileBytes.contents(atPath: path, limit: 65_536)
    }

    /// The file's text without surrounding white space, or nil.
    static func text(_ path: String) -> String? {
        contents(of: path).map { String(decoding: $0, as: UTF8.self).trimmedLines }
    }

    /// Where a symbolic link points, or nil.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in a folder (without `.` and `..`), sorted; nil if it cannot be listed.
    static func names(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = directoryEntryName(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Whether `path` is an executable file.
    static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line breaks.
    var trimmedLines: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0.isNewline }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
