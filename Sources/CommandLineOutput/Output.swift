import FoundationEssentials
import ReaderProtocol

/// Prints results as readerctl and cardreaderctl do: `key: value` lines for a person, or
/// one JSON object (keys sorted) for a script.
public enum Output {
    /// `fields`, sorted by key.
    public static func print(_ fields: [String: FieldValue], json: Bool) {
        print(fields, dataObjects: [:], json: json)
    }

    /// Fields, then groups of data objects by name (card data as the renderer left it): each
    /// group a tree under its key, or a nested array under that key in JSON.
    public static func print(_ fields: [String: FieldValue], dataObjects: [String: [EMVDataElementDescription]], json: Bool) {
        if json {
            Swift.print(Self.json(Result(fields: fields, dataObjects: dataObjects)))
            return
        }
        let width = fields.keys.map(\.count).max() ?? 0
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            Swift.print("\(key):".padded(to: width + 2) + value.description)
        }
        for (key, objects) in dataObjects.sorted(by: { $0.key < $1.key }) where !objects.isEmpty {
            Swift.print("\(key):")
            for line in objects.lines(indent: "  ") { Swift.print(line) }
        }
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
