import ArgumentParser

/// What readerctl checks in the command line beyond what the parser does: an option given
/// twice (the parser keeps the last silently), and a close match for a mistyped command or
/// option name.
enum CommandLineCheck {
    /// Options a person may give more than once: `--scenario` everywhere, `--reader` where
    /// a command takes several readers.
    static func repeatable(in command: String?) -> Set<String> {
        ["info", "events", "update-firmware"].contains(command ?? "") ? ["--reader", "--scenario"] : ["--scenario"]
    }

    /// The first option given twice that does not repeat, e.g. `--emulated`.
    static func repeatedOption(in arguments: [String]) -> String? {
        let repeatable = repeatable(in: arguments.first)
        var seen: Set<String> = []
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let name = String(argument.prefix { $0 != "=" })
            if repeatable.contains(name) { continue }
            if !seen.insert(name).inserted { return name }
        }
        return nil
    }

    /// What is wrong with a mistyped subcommand or option, led by the name and what to do,
    /// e.g. `'swip' is not a readerctl command; did you mean 'readerctl swipe'?`; nil when
    /// the line holds no such mistake (the parser's own message says what is wrong).
    static func mistake(in arguments: [String]) -> String? {
        let commands = ReaderCtl.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard let first = arguments.first else { return nil }
        if !first.hasPrefix("-"), !commands.contains(first) {
            let guess = closest(to: first, among: commands).map { "; did you mean 'readerctl \($0)'?" } ?? ""
            return "'\(first)' is not a readerctl command\(guess) (readerctl --help lists them)"
        }
        guard let command = ReaderCtl.configuration.subcommands.first(where: { $0.configuration.commandName == first })
        else { return nil }
        let options = optionNames(in: ReaderCtl.helpMessage(for: command, columns: 400))
        for argument in arguments.dropFirst() where argument.hasPrefix("--") {
            let name = String(argument.prefix { $0 != "=" })
            guard !options.contains(name), let match = closest(to: name, among: options) else { continue }
            return "\(first) has no option \(name); did you mean \(match)? (readerctl \(first) --help lists its options)"
        }
        return nil
    }

    /// An option given to a subcommand that does not have it, though others do, e.g.
    /// `--all is not an option of swipe; info, events, update-firmware and scan have one`;
    /// nil otherwise (the parser reports an option no subcommand knows).
    static func misplacedOption(in arguments: [String]) -> String? {
        guard let first = arguments.first,
            let command = ReaderCtl.configuration.subcommands.first(where: { $0.configuration.commandName == first })
        else { return nil }
        let given = arguments.dropFirst().prefix { $0 != "--" }.filter { $0.hasPrefix("--") }.map { String($0.prefix { $0 != "=" }) }
        // Help is answered whatever else the line holds.
        guard !given.isEmpty, !given.contains("--help"), !arguments.contains("-h") else { return nil }
        let options = Set(optionNames(in: ReaderCtl.helpMessage(for: command, columns: 400)))
        guard let unknown = given.first(where: { !options.contains($0) }) else { return nil }
        let takers = ReaderCtl.configuration.subcommands.filter { other in
            ObjectIdentifier(other) != ObjectIdentifier(command) && optionNames(in: ReaderCtl.helpMessage(for: other, columns: 400)).contains(unknown)
        }.compactMap { $0.configuration.commandName }
        guard !takers.isEmpty else { return nil }
        let list = takers.count == 1 ? takers[0] : takers.dropLast().joined(separator: ", ") + " and " + (takers.last ?? "")
        return "\(unknown) is not an option of \(first); \(list) \(takers.count == 1 ? "has" : "have") one"
    }

    /// The `--long-names` a help text's OPTIONS list gives (`  --reader <name|address> …`,
    /// `  -h, --help …`), not those its prose mentions.
    static func optionNames(in help: String) -> [String] {
        var names: Set<String> = []
        for line in help.split(separator: "\n") where line.hasPrefix("  -") {
            var rest = line.drop { $0 == " " }
            if rest.count > 3, rest.first == "-", rest.dropFirst().first != "-", rest.dropFirst(2).hasPrefix(", ") {
                rest = rest.dropFirst(4)  // `-h, `
            }
            guard rest.hasPrefix("--") else { continue }
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if name.count > 2 { names.insert(String(name)) }
        }
        return names.sorted()
    }

    /// The candidate nearest `word` by edit distance, if it is near enough to be a typo (at
    /// most a third of the word's letters), or of which `word` is a prefix.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word, $0)) }.sorted { $0.1 < $1.1 }
        guard let best = scored.first else { return nil }
        if best.1 <= max(1, word.count / 3) { return best.0 }
        let extending = candidates.filter { $0.hasPrefix(word) }
        return extending.count == 1 ? extending[0] : nil
    }

    /// Levenshtein distance, counting a swap of neighbours as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
