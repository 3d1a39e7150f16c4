import ArgumentParser
import CardReaderKitTesting
import FoundationEssentials

/// What shell completion (`readerctl --generate-completion-script`) offers for readerctl's
/// values: files of the right kind, the built-in cards and the scenario steps.
enum Completions {
    /// A firmware image: `.vfw` files.
    static let firmwareImage = CompletionKind.file(extensions: ["vfw"])
    /// A recording or capture to decode, or a file to write one to.
    static let recording = CompletionKind.file()
    /// A bond store: `.json` files.
    static let bondStore = CompletionKind.file(extensions: ["json"])

    /// `--card`: a built-in card's name, or a card file (`.json`) under what has been typed.
    static let card = CompletionKind.custom { _, _, typed in
        EmulatedCard.builtIn.map(\.name).filter { $0.hasPrefix(typed) } + files(endingIn: ".json", under: typed)
    }

    /// `--scenario`: the steps, each alone or after the steps already typed, comma-separated.
    static let scenario = CompletionKind.custom { _, _, typed in
        let done = typed.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
        let prefix = done.isEmpty ? "" : done + ","
        return EmulatorScenario.stepNames.map { prefix + $0 }.filter { $0.hasPrefix(typed) }
    }

    /// Directories and files ending in `suffix` whose path starts with `typed`.
    static func files(endingIn suffix: String, under typed: String) -> [String] {
        let slash = typed.lastIndex(of: "/")
        let directory = slash.map { String(typed[...$0]) } ?? ""
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        return names.sorted().compactMap { name -> String? in
            let path = directory + name
            guard path.hasPrefix(typed), !name.hasPrefix(".") else { return nil }
            var isDirectory = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if isDirectory { return path + "/" }
            return name.hasSuffix(suffix) ? path : nil
        }
    }
}
