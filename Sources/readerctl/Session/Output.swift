import FoundationEssentials

/// Prints results: `key: value` lines for a person, or one JSON object (keys sorted) for a
/// script.
enum Output {
    static func print(_ fields: [String: String], json: Bool) {
        if json {
            Swift.print(Self.json(fields))
        } else {
            let width = fields.keys.map(\.count).max() ?? 0
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                Swift.print("\(key):".padded(to: width + 2) + value)
            }
        }
    }

    /// `value` as one line of JSON, keys sorted.
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
