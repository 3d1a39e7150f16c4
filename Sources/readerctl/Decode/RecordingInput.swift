import FoundationEssentials
import ReaderProtocol

/// Reads a recording — the text format, or a btsnoop capture — from a path, or from
/// standard input for `-`.
enum RecordingInput {
    struct Failure: Error, CustomStringConvertible {
        var source: String
        var reason: String
        var description: String { "\(source): \(reason)" }
    }

    /// Hands over the recording's packets in order, each as soon as it is read: a text
    /// recording is parsed line by line, so a malformed line stops it after the packets
    /// before it were handed over.
    static func forEachPacket(in source: String, _ body: (RecordedPacket) -> Void) throws(Failure) {
        let bytes: [UInt8]
        if source == "-" {
            bytes = StandardStreams.readInput()
        } else {
            guard FileManager.default.fileExists(atPath: source) else {
                throw Failure(source: source, reason: "no such file")
            }
            guard let contents = FileBytes.contents(atPath: source) else {
                throw Failure(source: source, reason: "cannot be read (permissions, or a directory?)")
            }
            bytes = contents
        }
        if BTSnoopFile.isBTSnoop(bytes) {
            do {
                try ReaderATTTraffic.packets(in: try BTSnoopFile(bytes: bytes)).forEach(body)
            } catch {
                throw Failure(source: source, reason: error.description)
            }
            return
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Failure(source: source, reason: "is neither a text recording nor a btsnoop capture")
        }
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            do {
                if let packet = try PacketRecordingText.parse(line: line, number: number) { body(packet) }
            } catch {
                throw Failure(source: source, reason: error.description)
            }
        }
    }
}
