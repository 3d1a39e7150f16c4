import ReaderProtocol

/// Why a card file (`Fixtures/cards/*.json`) could not be loaded. It names the file and
/// the field at fault, never the field's value: card files hold card data.
public struct EmulatedCardFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name (or the label the caller gave in-memory data).
    public var file: String
    /// What is wrong, and with which field.
    public var problem: Problem

    /// A `problem` in the card file `file`.
    public init(file: String, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    /// What is wrong. `field` is a path such as `chip.applications[0].records[1].objects[2].value`.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file could not be read.
        case unreadable
        /// The file is not JSON at all.
        case notJSON
        /// A required field is missing.
        case missingField(String)
        /// A field has the wrong JSON type (e.g. a number where text belongs).
        case wrongType(String)
        /// A field the format does not define (often a misspelt one, which would otherwise
        /// be ignored silently).
        case unknownField(String)
        /// The format version is not one this SDK reads.
        case unsupportedFormat(Int)
        /// Neither `magneticStripe` nor `chip`: the card would be blank.
        case blankCard
        /// A field that must be hex (pairs of hex digits, spaces allowed) is not.
        case invalidHex(String)
        /// A track does not parse as ISO/IEC 7813 (the error carries no track contents).
        case invalidTrack(MagneticTrackError)
        /// The ATR is malformed (ATRs are not card data: the reason may show it).
        case invalidATR(String)
        /// A field's value breaks a rule, stated in `rule`.
        case invalidValue(field: String, rule: String)

        /// What is wrong and the field's path, e.g. `field chip.answerToReset is not hex`; never the value.
        public var description: String {
            switch self {
            case .unreadable: "the file cannot be read"
            case .notJSON: "the file is not valid JSON"
            case .missingField(let field): "missing field \(field)"
            case .wrongType(let field): "field \(field) has the wrong type"
            case .unknownField(let field): "unknown field \(field)"
            case .unsupportedFormat(let version): "format \(version) is not supported (this SDK reads format 1)"
            case .blankCard: "the card has neither magneticStripe nor chip"
            case .invalidHex(let field): "field \(field) is not hex"
            case .invalidTrack(let error): "\(error)"
            case .invalidATR(let reason): "invalid ATR: \(reason)"
            case .invalidValue(let field, let rule): "field \(field): \(rule)"
            }
        }
    }

    /// The file and the problem, e.g. `card file visa.json: missing field name`; never a field's value.
    public var description: String { "card file \(file): \(problem)" }
}
