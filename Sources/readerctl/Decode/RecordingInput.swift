import FoundationEssentials
import ReaderProtocol

/// Reads a recording — the text format, or a btsnoop capture — from a path, or from
/// standard input for `-`.
enum RecordingInput {
    struct Failure: Error, CustomStringConvertible {
        var source: String
        var reason: String
        /// What to do; for input that is not a recording, what one looks like.
        var fix: String = Self.formatFix
        var description: String { "\(source): \(reason)" }

        /// What a recording is, and how to make one.
        static let formatFix =
            "decode reads a recording: one packet per line, '> HEX' from host to reader or '< HEX' from reader to "
            + "host, a timestamp in seconds before the mark if recorded (`readerctl swipe --emulated --record FILE` "
            + "writes one), or a btsnoop capture (`btmon -w FILE`); Docs/decoding-recordings.md describes both"
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
                throw Failure(source: source, reason: "no such file", fix: "check the path (relative paths start in the current directory)")
            }
            guard let contents = FileBytes.contents(atPath: source) else {
                throw Failure(
                    source: source, reason: "cannot be read (permissions, or a directory?)",
                    fix: "name a file this user may read (`ls -l` shows its permissions)")
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
