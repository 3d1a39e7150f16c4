import Foundation
import ReaderProtocol

/// Reads a recording — the text format, or a btsnoop capture — from a path, or from
/// standard input for `-`.
enum RecordingInput {
    struct Failure: Error, CustomStringConvertible {
        var source: String
        var reason: String
        var description: String { "\(source): \(reason)" }
    }

    static func packets(from source: String) throws(Failure) -> [RecordedPacket] {
        let data: Data
        if source == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard FileManager.default.fileExists(atPath: source) else {
                throw Failure(source: source, reason: "no such file")
            }
            guard let contents = FileManager.default.contents(atPath: source) else {
                throw Failure(source: source, reason: "cannot be read (permissions, or a directory?)")
            }
            data = contents
        }
        let bytes = [UInt8](data)
        if BTSnoopFile.isBTSnoop(bytes) {
            do {
                return try ReaderATTTraffic.packets(in: try BTSnoopFile(bytes: bytes))
            } catch {
                throw Failure(source: source, reason: error.description)
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Failure(source: source, reason: "is neither a text recording nor a btsnoop capture")
        }
        do {
            return try PacketRecordingText.parse(text)
        } catch {
            throw Failure(source: source, reason: error.description)
        }
    }
}
