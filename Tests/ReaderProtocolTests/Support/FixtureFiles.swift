import Foundation

/// The repository's `Fixtures/` folder, found from this file's location.
enum FixtureFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Names (without extension) of the files in `folder` that end in `suffix`.
    static func names(in folder: String, endingIn suffix: String) -> [String] {
        let directory = root.appendingPathComponent(folder)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }.sorted()
    }

    static func bytes(_ folder: String, _ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(file)))
    }

    static func text(_ folder: String, _ file: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(file), encoding: .utf8)
    }
}
