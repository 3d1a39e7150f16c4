import Foundation
import ReaderProtocol

/// Reads a recording from a path, or from standard input for `-`.
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
        guard let text = String(data: data, encoding: .utf8) else {
            throw Failure(source: source, reason: "is not a text recording (not UTF-8)")
        }
        do {
            return try PacketRecordingText.parse(text)
        } catch {
            throw Failure(source: source, reason: error.description)
        }
    }
}
