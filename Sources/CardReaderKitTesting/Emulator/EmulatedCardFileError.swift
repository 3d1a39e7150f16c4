import ReaderProtocol

/// Why a card file (`Fixtures/cards/*.json`) could not be loaded. It names the file and
/// the field at fault, never the field's value: card files hold card data.
public struct EmulatedCardFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name (or the label the caller gave in-memory data).
    public var file: String
    /// What is wrong, and with which field.
    public var problem: Problem

    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Problem.Code { problem.code }

    /// A `problem` in the card file `file`.
    public init(file: String, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    /// What is wrong. `field` is a path such as `chip.applications[0].records[1].objects[2].value`.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
        public var code: Code { storage.code }

        /// What is wrong and the field's path, e.g. `field chip.answerToReset is not hex`; never the value.
        public var description: String { storage.description }

        /// The path of the field at fault, when the problem concerns one.
        public var field: String? {
            switch storage {
            case .missingField(let field),
                .wrongType(let field),
                .unknownField(let field),
                .invalidHex(let field),
                .invalidValue(let field, _):
                field
            default: nil
            }
        }

        let storage: Storage

        init(_ storage: Storage) {
            self.storage = storage
        }

        /// The file could not be read.
        public static let unreadable = Self(.unreadable)

        /// The file is not JSON at all.
        public static let notJSON = Self(.notJSON)

        /// A required field is missing.
        public static func missingField(_ field: String) -> Self {
            Self(.missingField(field))
        }

        /// A field has the wrong JSON type (e.g. a number where text belongs).
        public static func wrongType(_ field: String) -> Self {
            Self(.wrongType(field))
        }

        /// A field the format does not define (often a misspelt one, which would otherwise
        /// be ignored silently).
        public static func unknownField(_ field: String) -> Self {
            Self(.unknownField(field))
        }

        /// The format version is not one this SDK reads.
        public static func unsupportedFormat(_ version: Int) -> Self {
            Self(.unsupportedFormat(version))
        }

        /// Neither `magneticStripe` nor `chip`: the card would be blank.
        public static let blankCard = Self(.blankCard)

        /// A field that must be hex (pairs of hex digits, spaces allowed) is not.
        public static func invalidHex(_ field: String) -> Self {
            Self(.invalidHex(field))
        }

        /// A track does not parse as ISO/IEC 7813 (the error carries no track contents).
        public static func invalidTrack(_ track: MagneticTrackError) -> Self {
            Self(.invalidTrack(track))
        }

        /// The ATR is malformed (ATRs are not card data: the reason may show it).
        public static func invalidATR(_ reason: String) -> Self {
            Self(.invalidATR(reason))
        }

        /// A field's value breaks a rule, stated in `rule`.
        public static func invalidValue(field: String, rule: String) -> Self {
            Self(.invalidValue(field: field, rule: rule))
        }

        /// What is wrong, as a stable identifier (`unreadable`), as in `readerctl --json`.
        public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            /// The file could not be read.
            public static let unreadable = Self(rawValue: "unreadable")

            /// The file is not JSON at all.
            public static let notJSON = Self(rawValue: "not-json")

            /// A required field is missing.
            public static let missingField = Self(rawValue: "missing-field")

            /// A field has the wrong JSON type (e.g. a number where text belongs).
            public static let wrongType = Self(rawValue: "wrong-type")

            /// A field the format does not define (often a misspelt one, which would otherwise
            /// be ignored silently).
            public static let unknownField = Self(rawValue: "unknown-field")

            /// The format version is not one this SDK reads.
            public static let unsupportedFormat = Self(rawValue: "unsupported-format")

            /// Neither `magneticStripe` nor `chip`: the card would be blank.
            public static let blankCard = Self(rawValue: "blank-card")

            /// A field that must be hex (pairs of hex digits, spaces allowed) is not.
            public static let invalidHex = Self(rawValue: "invalid-hex")

            /// A track does not parse as ISO/IEC 7813 (the error carries no track contents).
            public static let invalidTrack = Self(rawValue: "invalid-track")

            /// The ATR is malformed (ATRs are not card data: the reason may show it).
            public static let invalidATR = Self(rawValue: "invalid-atr")

            /// A field's value breaks a rule, stated in `rule`.
            public static let invalidValue = Self(rawValue: "invalid-value")
        }

        enum Storage: Sendable, Hashable {
            case unreadable
            case notJSON
            case missingField(String)
            case wrongType(String)
            case unknownField(String)
            case unsupportedFormat(Int)
            case blankCard
            case invalidHex(String)
            case invalidTrack(MagneticTrackError)
            case invalidATR(String)
            case invalidValue(field: String, rule: String)

            var code: Code {
                switch self {
                case .unreadable: .unreadable
                case .notJSON: .notJSON
                case .missingField: .missingField
                case .wrongType: .wrongType
                case .unknownField: .unknownField
                case .unsupportedFormat: .unsupportedFormat
                case .blankCard: .blankCard
                case .invalidHex: .invalidHex
                case .invalidTrack: .invalidTrack
                case .invalidATR: .invalidATR
                case .invalidValue: .invalidValue
                }
            }

            var description: String {
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
    }

    /// The file and the problem, e.g. `card file visa.json: missing field name`; never a field's value.
    public var description: String { "card file \(file): \(problem)" }
}
