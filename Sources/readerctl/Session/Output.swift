import Foundation

/// Prints results: `key: value` lines for a person, or one JSON object (keys sorted) for a
/// script.
enum Output {
    static func print(_ fields: [String: String], json: Bool) {
        if json {
            let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]))
                ?? Data("{}".utf8)
            Swift.print(String(decoding: data, as: UTF8.self))
        } else {
            let width = fields.keys.map(\.count).max() ?? 0
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                Swift.print("\(key):".padding(toLength: width + 2, withPad: " ", startingAt: 0) + value)
            }
        }
    }
}
