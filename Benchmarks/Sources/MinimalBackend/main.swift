import CardReaderKit
import CardReaderKitTesting
import Glibc

// The smallest point-of-sale backend: link CardReaderKit, connect to the emulated reader,
// read one swipe, print the masked card number. Then it reports what it cost: the shared
// libraries mapped into the process (from /proc/self/maps) and the resident set size.
// `Benchmarks/run` prints this beside the binary's size.

let reader = CardReader(connector: EmulatedReaderConnector(reader: EmulatedReader(card: .visaTest)))
do {
    try await reader.connect()
    let swipe = try await reader.readMagneticStripe(timeout: .seconds(5))
    print("swiped: \(swipe.track2.track.map { "\($0.primaryAccountNumber)" } ?? "no track 2")")
    await reader.disconnect()
} catch {
    print("failed: \(error)")
    exit(1)
}

/// The lines of a /proc file.
func lines(of path: String) -> [Substring] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[..<count] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n")
}

var libraries = Set<String>()
for line in lines(of: "/proc/self/maps") {
    if let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.contains(".so") {
        libraries.insert(String(path))
    }
}
var libraryBytes = 0
for library in libraries {
    var status = stat()
    if stat(library, &status) == 0 { libraryBytes += Int(status.st_size) }
}
let names = libraries.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.sorted()
let rssPages = lines(of: "/proc/self/statm").first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
let megabytes = { (bytes: Int) in "\((Double(bytes) / 1e5).rounded() / 10) MB" }
print("shared libraries: \(libraries.count), \(megabytes(libraryBytes)) on disk")
print("ICU loaded: \(names.contains { $0.contains("ICU") || $0.contains("icu") } ? "yes" : "no")")
print("Foundation loaded: \(names.contains { $0.hasPrefix("libFoundation.so") } ? "yes" : "no")")
print("resident set: \(megabytes(rssPages * sysconf(Int32(_SC_PAGESIZE))))")
print("libraries: \(names.joined(separator: " "))")
