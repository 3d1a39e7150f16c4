/// How decoded records are checked against a golden file (`NAME.expected.jsonl`: one
/// ``DecodedRecord`` per line, as `readerctl decode --json` prints them). One convention,
/// that of `readerctl decode --expect` and of the golden-frame tests:
///
/// - the records come in the same order, as many as expected;
/// - `type`, `direction`, `line`, `offset` and `length` must be equal;
/// - `timestamp`, `kind`, `code`, `name`, `status`, `statusName` and `reason` must be
///   equal where the expected record has them (a golden file may leave out what varies);
/// - `fields` and `dataObjects` are compared when the expected record has them: the same
///   field names, and the same values as text (`30` matches `"30"`, as golden files
///   written before fields carried numbers have it), except that an expected `*` takes any
///   value (for prose such as a status word's meaning);
/// - `detail` (a sentence for a person) and `source` (the input's path) are never compared.
public enum GoldenRecords {
    /// One way the records differ from the expected ones.
    public struct Difference: Sendable, Hashable, CustomStringConvertible {
        /// The record's number, from 1 (for a count that differs, the first record too many
        /// or missing).
        public var record: Int
        /// What differs: `code`, `fields.track2.pan`, `records` (the count).
        public var property: String
        public var expected: String
        public var actual: String

        public init(record: Int, property: String, expected: String, actual: String) {
            self.record = record
            self.property = property
            self.expected = expected
            self.actual = actual
        }

        public var description: String { "record \(record): \(property) is \(actual), expected \(expected)" }
    }

    /// Every difference between `actual` and `expected`, record by record; empty when
    /// they match.
    public static func differences(actual: [DecodedRecord], expected: [DecodedRecord]) -> [Difference] {
        var differences: [Difference] = []
        for (index, (got, want)) in zip(actual, expected).enumerated() {
            differences += compare(got, want, record: index + 1)
        }
        if actual.count != expected.count {
            differences.append(
                Difference(
                    record: min(actual.count, expected.count) + 1, property: "records", expected: "\(expected.count)",
                    actual: "\(actual.count)"))
        }
        return differences
    }

    /// Each compared property as text; nil where the record has none.
    private static let compared: [(String, @Sendable (DecodedRecord) -> String?)] = [
        ("type", { $0.type }), ("direction", { $0.direction }), ("line", { "\($0.line)" }),
        ("timestamp", { $0.timestamp.map { "\($0)" } }), ("offset", { "\($0.offset)" }), ("length", { "\($0.length)" }),
        ("kind", { $0.kind }), ("code", { $0.code }), ("name", { $0.name }), ("status", { $0.status }),
        ("statusName", { $0.statusName }), ("reason", { $0.reason }),
    ]

    private static func compare(_ actual: DecodedRecord, _ expected: DecodedRecord, record: Int) -> [Difference] {
        var differences: [Difference] = []
        func differ(_ property: String, _ want: String?, _ got: String?) {
            differences.append(Difference(record: record, property: property, expected: want ?? "none", actual: got ?? "none"))
        }
        for (property, value) in compared {
            guard let want = value(expected), value(actual) != want else { continue }
            differ(property, want, value(actual))
        }
        if let wanted = expected.fields {
            let got = actual.fields ?? [:]
            for key in Set(wanted.keys).union(got.keys).sorted() {
                let (want, have) = (wanted[key]?.description, got[key]?.description)
                guard want != have, !(want == "*" && have != nil) else { continue }
                differ("fields.\(key)", want, have)
            }
        }
        if let wanted = expected.dataObjects, wanted != actual.dataObjects {
            let tags = { (objects: [EMVDataElementDescription]?) in objects.map { $0.map(\.tag).joined(separator: " ") } }
            let (want, got) = (tags(wanted), tags(actual.dataObjects))
            differ("dataObjects", want, got == want ? "\(got ?? "none") with other values" : got)
        }
        return differences
    }
}
