import FoundationEssentials
import ReaderProtocol

/// Loading cards from the JSON files documented in `Fixtures/cards/README.md`.
extension EmulatedCard {
    /// Loads a card file; the error names the file and the faulty field, never card data.
    public init(contentsOf url: URL) throws(EmulatedCardFileError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw EmulatedCardFileError(file: url.lastPathComponent, problem: .unreadable)
        }
        try self.init(json: data, file: url.lastPathComponent)
    }

    /// Decodes a card from JSON; `file` names it in errors.
    public init(json data: Data, file: String) throws(EmulatedCardFileError) {
        let document: CardDocument
        do {
            document = try JSONDecoder().decode(CardDocument.self, from: data)
        } catch let error as DecodingError {
            throw EmulatedCardFileError(file: file, problem: Self.problem(error))
        } catch {
            throw EmulatedCardFileError(file: file, problem: .notJSON)
        }
        if let field = Self.unknownField(in: data) {
            throw EmulatedCardFileError(file: file, problem: .unknownField(field))
        }
        do {
            self = try document.card()
        } catch {
            throw EmulatedCardFileError(file: file, problem: error)
        }
    }

    /// The fields format 1 defines, for rejecting misspelt ones.
    private indirect enum Schema: Sendable {
        case leaf
        case object([String: Schema])
        case array(Schema)

        /// Built on each use, once per card file read. A `static let` would keep the tree in
        /// a global whose enum payload carries its case in the pointer's spare bits, which
        /// LeakSanitizer does not follow: every AddressSanitizer run would end reporting it.
        static var format1: Schema {
            .object([
                "format": .leaf, "name": .leaf,
                "magneticStripe": .object(["track1": .leaf, "track2": .leaf, "track3": .leaf]),
                "chip": .object([
                    "atr": .leaf,
                    "applications": .array(
                        .object([
                            "aid": .leaf, "label": .leaf, "priority": .leaf, "pdol": .leaf, "aip": .leaf,
                            "records": .array(
                                .object([
                                    "sfi": .leaf, "record": .leaf,
                                    "objects": .array(.object(["tag": .leaf, "value": .leaf, "text": .leaf])),
                                ])),
                        ])),
                ]),
            ])
        }
    }

    /// The path of the first field (in key order) that format 1 does not define, if any.
    private static func unknownField(in data: Data) -> String? {
        guard let root = try? JSONDecoder().decode(JSONShape.self, from: data) else { return nil }
        func search(_ value: JSONShape, _ schema: Schema, _ path: String) -> String? {
            switch (schema, value) {
            case (.object(let fields), .object(let object)):
                for (key, child) in object.sorted(by: { $0.key < $1.key }) {
                    let childPath = path.isEmpty ? key : "\(path).\(key)"
                    guard let childSchema = fields[key] else { return childPath }
                    if let found = search(child, childSchema, childPath) { return found }
                }
                return nil
            case (.array(let element), .array(let array)):
                for (index, child) in array.enumerated() {
                    if let found = search(child, element, "\(path)[\(index)]") { return found }
                }
                return nil
            default:
                return nil
            }
        }
        return search(root, .format1, "")
    }

    /// The decoder's error without its debug text, which can quote the offending value.
    private static func problem(_ error: DecodingError) -> EmulatedCardFileError.Problem {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            (codingPath + (last.map { [$0] } ?? [])).map { key in
                key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
            }.joined().trimmingPrefix(".").description
        }
        switch error {
        case .keyNotFound(let key, let context): return .missingField(path(context.codingPath, key))
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return .wrongType(path(context.codingPath))
        case .dataCorrupted(let context) where !context.codingPath.isEmpty: return .wrongType(path(context.codingPath))
        default: return .notJSON
        }
    }
}

/// The JSON document, field for field (format 1).
private struct CardDocument: Decodable {
    var format: Int
    var name: String
    var magneticStripe: StripeDocument?
    var chip: ChipDocument?

    struct StripeDocument: Decodable {
        var track1: String?
        var track2: String?
        var track3: String?
    }

    struct ChipDocument: Decodable {
        var atr: String
        var applications: [ApplicationDocument]
    }

    struct ApplicationDocument: Decodable {
        var aid: String
        var label: String
        var priority: UInt8?
        var pdol: String?
        var aip: String
        var records: [RecordDocument]
    }

    struct RecordDocument: Decodable {
        var sfi: Int
        var record: Int
        var objects: [ObjectDocument]
    }

    struct ObjectDocument: Decodable {
        var tag: String
        var value: String?
        var text: String?
    }

    typealias Problem = EmulatedCardFileError.Problem

    func card() throws(Problem) -> EmulatedCard {
        guard format == 1 else { throw .unsupportedFormat(format) }
        guard magneticStripe != nil || chip != nil else { throw .blankCard }
        return EmulatedCard(name: name, magneticStripe: try magneticStripe.map(stripe), chip: try chip.map(chipValue))
    }

    private func stripe(_ document: StripeDocument) throws(Problem) -> MagneticStripeData {
        do {
            if let track1 = document.track1 { _ = try Track1(parsing: track1) }
            if let track2 = document.track2 { _ = try Track2(parsing: track2) }
            if let track3 = document.track3 { _ = try Track3(parsing: track3) }
        } catch {
            throw .invalidTrack(error)
        }
        return MagneticStripeData(
            track1: SensitiveBytes((document.track1 ?? "").utf8), track2: SensitiveBytes((document.track2 ?? "").utf8),
            track3: SensitiveBytes((document.track3 ?? "").utf8))
    }

    private func chipValue(_ document: ChipDocument) throws(Problem) -> EmulatedCard.Chip {
        let atr = try hex(document.atr, field: "chip.atr")
        do {
            _ = try AnswerToReset(bytes: atr)
        } catch {
            throw .invalidATR(error.reason ?? error.description)
        }
        guard !document.applications.isEmpty else {
            throw .invalidValue(field: "chip.applications", rule: "a chip needs at least one application")
        }
        var applications: [EmulatedCard.Application] = []
        for (index, application) in document.applications.enumerated() {
            applications.append(try self.application(application, field: "chip.applications[\(index)]"))
        }
        return EmulatedCard.Chip(answerToReset: atr, applications: applications)
    }

    private func application(_ document: ApplicationDocument, field: String) throws(Problem) -> EmulatedCard.Application {
        let aid = try hex(document.aid, field: "\(field).aid")
        guard (5...16).contains(aid.count) else { throw .invalidValue(field: "\(field).aid", rule: "an AID has 5 to 16 bytes") }
        guard (1...16).contains(document.label.utf8.count), document.label.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        else {
            throw .invalidValue(field: "\(field).label", rule: "1 to 16 printable ASCII characters")
        }
        let aip = try hex(document.aip, field: "\(field).aip")
        guard aip.count == 2 else { throw .invalidValue(field: "\(field).aip", rule: "the AIP has 2 bytes") }
        var pdol: DataObjectList?
        if let text = document.pdol {
            let bytes = try hex(text, field: "\(field).pdol")
            do {
                pdol = try DataObjectList(parsing: bytes)
            } catch {
                throw .invalidValue(field: "\(field).pdol", rule: "a DOL is BER tags each followed by a length")
            }
        }
        var records: [EmulatedCard.Record] = []
        for (index, record) in document.records.enumerated() {
            let recordField = "\(field).records[\(index)]"
            let value = try self.record(record, field: recordField)
            guard !records.contains(where: { $0.shortFileIdentifier == value.shortFileIdentifier && $0.number == value.number })
            else {
                throw .invalidValue(field: recordField, rule: "SFI \(value.shortFileIdentifier) record \(value.number) appears twice")
            }
            records.append(value)
        }
        return EmulatedCard.Application(
            identifier: aid, label: document.label, priority: document.priority, processingOptionsDataObjectList: pdol,
            interchangeProfile: aip, records: records)
    }

    private func record(_ document: RecordDocument, field: String) throws(Problem) -> EmulatedCard.Record {
        guard (1...30).contains(document.sfi) else { throw .invalidValue(field: "\(field).sfi", rule: "an SFI is 1…30") }
        guard (1...255).contains(document.record) else {
            throw .invalidValue(field: "\(field).record", rule: "a record number is 1…255")
        }
        var objects: [BERTLV] = []
        for (index, object) in document.objects.enumerated() {
            let objectField = "\(field).objects[\(index)]"
            let tagBytes = try hex(object.tag, field: "\(objectField).tag")
            let tag: BERTag
            do {
                tag = try BERTag(bytes: tagBytes)
            } catch {
                throw .invalidValue(field: "\(objectField).tag", rule: "not one BER tag (\(error))")
            }
            switch (object.value, object.text) {
            case (let value?, nil):
                objects.append(BERTLV(tag: tag, value: SensitiveBytes(try hex(value, field: "\(objectField).value"))))
            case (nil, let text?):
                guard text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                    throw .invalidValue(field: "\(objectField).text", rule: "text must be printable ASCII")
                }
                objects.append(BERTLV(tag: tag, value: SensitiveBytes(text.utf8)))
            default:
                throw .invalidValue(field: objectField, rule: "give exactly one of value (hex) and text (ASCII)")
            }
        }
        let value = EmulatedCard.Record(shortFileIdentifier: document.sfi, number: document.record, objects: objects)
        guard value.template.count <= 256 else {
            throw .invalidValue(field: field, rule: "the 70 template exceeds the 256 bytes a short READ RECORD returns")
        }
        return value
    }

    /// Pairs of hex digits; spaces are ignored.
    private func hex(_ text: String, field: String) throws(Problem) -> [UInt8] {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        guard digits.count.isMultiple(of: 2) else { throw .invalidHex(field) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                throw .invalidHex(field)
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A JSON document's shape, without its values: objects with their keys, arrays, and
/// scalars (values are card data and are never kept).
private enum JSONShape: Decodable {
    case object([String: JSONShape])
    case array([JSONShape])
    case scalar

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var fields: [String: JSONShape] = [:]
            for key in object.allKeys {
                fields[key.stringValue] = try object.decodeNil(forKey: key) ? .scalar : object.decode(JSONShape.self, forKey: key)
            }
            self = .object(fields)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONShape] = []
            while !array.isAtEnd {
                elements.append(try array.decodeNil() ? .scalar : array.decode(JSONShape.self))
            }
            self = .array(elements)
        } else {
            self = .scalar
        }
    }
}
