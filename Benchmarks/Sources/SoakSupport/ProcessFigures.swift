import Glibc
import ProcessProbe

/// What a soak watches for growth: memory, file descriptors, threads, and the timers
/// asleep on the reader's (and the emulator's) clock.
public struct ProcessFigures: Sendable {
    public var heapBytes: Int
    public var residentBytes: Int
    /// What each open file descriptor refers to (its /proc/self/fd link), by number.
    public var fileDescriptors: [Int32: String]
    public var openFileDescriptors: Int { fileDescriptors.count }
    public var threads: Int
    public var sleepingTimers: Int

    public static func now(clock: CountingClock) -> ProcessFigures {
        ProcessFigures(
            heapBytes: process_probe_heap_in_use(), residentBytes: residentBytes(), fileDescriptors: fileDescriptors(),
            threads: threads(), sleepingTimers: clock.sleeping)
    }

    /// Resident set size, from the second field of /proc/self/statm (in pages).
    private static func residentBytes() -> Int {
        let fields = procFile("/proc/self/statm").split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    private static func fileDescriptors() -> [Int32: String] {
        guard let directory = opendir("/proc/self/fd") else { return [:] }
        defer { closedir(directory) }
        var descriptors: [Int32: String] = [:]
        while let entry = readdir(directory) {
            // In place: a copy of `d_name` reads all 256 bytes, past a short entry's end.
            let offset = MemoryLayout<dirent>.offset(of: \.d_name) ?? 0
            let name = String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
            guard let number = Int32(name), number != dirfd(directory) else { continue }
            var target = [CChar](repeating: 0, count: 256)
            let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            descriptors[number] = length > 0 ? String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        }
        return descriptors
    }

    private static func threads() -> Int {
        for line in procFile("/proc/self/status").split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).trimmingPrefix(while: { $0 == "\t" || $0 == " " })) ?? -1
        }
        return -1
    }

    private static func procFile(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
