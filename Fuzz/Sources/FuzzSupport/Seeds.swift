import CardReaderKit
import Foundation
import ReaderProtocol

/// Seed corpora from the repository's `Fixtures/`, made by the targets themselves.
///
/// `Scripts/fuzz` runs each target once with `FUZZ_WRITE_SEEDS=<dir>` and
/// `FUZZ_FIXTURES=<Fixtures path>`: the target's `LLVMFuzzerInitialize` calls
/// ``writeIfRequested(_:)``, which writes the inputs the target derives from the fixtures
/// (one file each) and ends the process. Without the variables it does nothing.
public enum Seeds {
    public static func writeIfRequested(_ make: (Fixtures) throws -> [[UInt8]]) {
        let environment = ProcessInfo.processInfo.environment
        guard let output = environment["FUZZ_WRITE_SEEDS"], let root = environment["FUZZ_FIXTURES"] else { return }
        do {
            let directory = URL(fileURLWithPath: output, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let seeds = try make(Fixtures(root: URL(fileURLWithPath: root, isDirectory: true)))
            for (index, seed) in seeds.enumerated() {
                try Data(seed).write(to: directory.appendingPathComponent(String(format: "seed-%04d", index)))
            }
            FileHandle.standardOutput.write(Data("wrote \(seeds.count) seeds to \(output)\n".utf8))
            _exit(0)  // no leak check of the one-off work at exit
        } catch {
            FileHandle.standardError.write(Data("cannot write seeds: \(error)\n".utf8))
            _exit(1)
        }
    }
}

/// The fixture files, read and parsed with the project's own parsers.
public struct Fixtures {
    public let root: URL

    private func files(_ folder: String, _ suffix: String) throws -> [URL] {
        let directory = root.appendingPathComponent(folder, isDirectory: true)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix(suffix) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The raw bytes of `Fixtures/packets/*.txt`.
    public func packetTexts() throws -> [[UInt8]] {
        try files("packets", ".txt").map { [UInt8](try Data(contentsOf: $0)) }
    }

    /// The raw bytes of `Fixtures/captures/*.btsnoop`.
    public func captures() throws -> [[UInt8]] {
        try files("captures", ".btsnoop").map { [UInt8](try Data(contentsOf: $0)) }
    }

    /// The raw bytes of `Fixtures/cards/*.json`.
    public func cardFiles() throws -> [[UInt8]] {
        try files("cards", ".json").map { [UInt8](try Data(contentsOf: $0)) }
    }

    /// The cards, loaded.
    public func cards() throws -> [EmulatedCard] {
        try files("cards", ".json").map { try EmulatedCard(contentsOf: $0) }
    }

    /// Every recording's packets: the text recordings' and the captures' reader traffic.
    public func recordings() throws -> [[RecordedPacket]] {
        let texts = try packetTexts().map { try PacketRecordingText.parse(String(decoding: $0, as: UTF8.self)) }
        let captures = try captures().map { try ReaderATTTraffic.packets(in: try BTSnoopFile(bytes: $0)) }
        return texts + captures
    }

    /// Each recording's stream in one direction: its packets' bytes, in order.
    public func streams() throws -> [[UInt8]] {
        try recordings().flatMap { packets in
            [LinkDirection.hostToReader, .readerToHost].map { direction in
                packets.filter { $0.direction == direction }.flatMap(\.bytes)
            }
        }.filter { !$0.isEmpty }
    }

    /// Every intact frame in the recordings, with its direction, without repeats.
    public func frames() throws -> [(frame: Frame, direction: LinkDirection)] {
        var seen: Set<[UInt8]> = []
        var result: [(Frame, LinkDirection)] = []
        for packets in try recordings() {
            for entry in RecordingDecoder.decode(packets) {
                guard case .frame(let frame, _, _) = entry.content else { continue }
                let key = [entry.direction == .hostToReader ? 0 : 1, frame.code.main, frame.code.sub] + frame.data
                if seen.insert(key).inserted { result.append((frame, entry.direction)) }
            }
        }
        return result
    }
}
