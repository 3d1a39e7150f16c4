import FoundationEssentials
import ReaderProtocol

/// Results as readerctl and cardreaderctl write them: `key: value` lines for a person, or
/// one JSON object (keys sorted) for a script. The programs write the lines out.
public enum Output {
    /// `fields`, sorted by key.
    public static func lines(_ fields: [String: FieldValue], json: Bool) -> [String] {
        lines(fields, dataObjects: [:], json: json)
    }

    /// Fields, then groups of data objects by name (card data as the renderer left it): each
    /// group a tree under its key, or a nested array under that key in JSON.
    public static func lines(_ fields: [String: FieldValue], dataObjects: [String: [EMVDataElementDescription]], json: Bool)
        -> [String]
    {
        if json { return [Self.json(Result(fields: fields, dataObjects: dataObjects))] }
        let width = fields.keys.map(\.count).max() ?? 0
        var lines = fields.sorted(by: { $0.key < $1.key }).map { "\($0.key):".padded(to: width + 2) + $0.value.description }
        for (key, objects) in dataObjects.sorted(by: { $0.key < $1.key }) where !objects.isEmpty {
            lines.append("\(key):")
            lines += objects.lines(indent: "  ")
        }
        return lines
    }

    /// `value` as one line of JSON, keys sorted.
    public static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Fields and data-object groups as the keys of one JSON object.
    private struct Result: Encodable {
        let fields: [String: FieldValue]
        let dataObjects: [String: [EMVDataElementDescription]]

        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in fields { try container.encode(value, forKey: Key(stringValue: key)) }
            for (key, objects) in dataObjects { try container.encode(objects, forKey: Key(stringValue: key)) }
        }
    }
}
