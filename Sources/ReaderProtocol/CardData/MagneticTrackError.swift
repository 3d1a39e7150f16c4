/// Why a magnetic stripe track could not be parsed. Offsets count from the start sentinel (0).
/// Neither the description nor any case carries track contents.
public struct MagneticTrackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The track: 1, 2 or 3.
    public let track: Int
    /// What is wrong.
    public let problem: Problem

    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Problem.Code { problem.code }

    /// A `problem` found in track `track` (1, 2 or 3).
    public init(track: Int, problem: Problem) {
        self.track = track
        self.problem = problem
    }

    /// The parts of a track, for error reports.
    public enum Field: String, Sendable, Hashable {
        /// The primary account number (tracks 1 and 2).
        case primaryAccountNumber = "PAN"
        /// The cardholder name (track 1).
        case cardholderName = "cardholder name"
        /// The expiry date, `YYMM` (tracks 1 and 2).
        case expiry
        /// The three-digit service code (tracks 1 and 2).
        case serviceCode = "service code"
        /// The issuer's discretionary data after the service code (tracks 1 and 2).
        case discretionaryData = "discretionary data"
        /// Track 3's data between its sentinels, which the SDK does not split into fields.
        case data
    }

    /// What is wrong with a track.
    public struct Problem: Sendable, Hashable {
        /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
        public var code: Code { storage.code }

        /// Where the problem starts, counted from the start sentinel (0).
        public var offset: Int? {
            switch storage {
            case .dataAfterEndSentinel(let offset),
                .nonDigitInPAN(let offset),
                .invalidExpiry(let offset),
                .invalidServiceCode(let offset),
                .illegalCharacter(let offset, _):
                offset
            default: nil
            }
        }

        let storage: Storage

        init(_ storage: Storage) {
            self.storage = storage
        }

        /// The first character is not the start sentinel (`%` on track 1, `;` on tracks 2 and 3).
        public static let missingStartSentinel = Self(.missingStartSentinel)

        /// There is no end sentinel `?`.
        public static let missingEndSentinel = Self(.missingEndSentinel)

        /// Characters follow the first end sentinel, starting at this offset.
        public static func dataAfterEndSentinel(offset: Int) -> Self {
            Self(.dataAfterEndSentinel(offset: offset))
        }

        /// Track 1's format code (offset 1) is not `B`.
        public static let unsupportedFormatCode = Self(.unsupportedFormatCode)

        /// The track is longer than ISO/IEC 7813 (or ISO/IEC 4909 for track 3) allows.
        public static func tooLong(length: Int, maximum: Int) -> Self {
            Self(.tooLong(length: length, maximum: maximum))
        }

        /// The PAN has this many digits instead of 8 to 19.
        public static func invalidPANLength(_ count: Int) -> Self {
            Self(.invalidPANLength(count))
        }

        /// The PAN character at this offset is not a digit.
        public static func nonDigitInPAN(offset: Int) -> Self {
            Self(.nonDigitInPAN(offset: offset))
        }

        /// The field separator after this field is missing.
        public static func missingSeparator(after: Field) -> Self {
            Self(.missingSeparator(after: after))
        }

        /// At this offset there is neither a valid `YYMM` (month 01–12) nor the separator marking it absent.
        public static func invalidExpiry(offset: Int) -> Self {
            Self(.invalidExpiry(offset: offset))
        }

        /// At this offset there are neither three digits nor the separator marking the service code absent.
        public static func invalidServiceCode(offset: Int) -> Self {
            Self(.invalidServiceCode(offset: offset))
        }

        /// The cardholder name has this many characters instead of 2 to 26.
        public static func invalidNameLength(_ count: Int) -> Self {
            Self(.invalidNameLength(count))
        }

        /// The character at this offset is outside the track's character set (or is a separator or sentinel).
        public static func illegalCharacter(offset: Int, field: Field) -> Self {
            Self(.illegalCharacter(offset: offset, field: field))
        }

        /// What is wrong, as a stable identifier (`missing-start-sentinel`).
        public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            /// The first character is not the start sentinel (`%` on track 1, `;` on tracks 2 and 3).
            public static let missingStartSentinel = Self(rawValue: "missing-start-sentinel")

            /// There is no end sentinel `?`.
            public static let missingEndSentinel = Self(rawValue: "missing-end-sentinel")

            /// Characters follow the first end sentinel, starting at this offset.
            public static let dataAfterEndSentinel = Self(rawValue: "data-after-end-sentinel")

            /// Track 1's format code (offset 1) is not `B`.
            public static let unsupportedFormatCode = Self(rawValue: "unsupported-format-code")

            /// The track is longer than ISO/IEC 7813 (or ISO/IEC 4909 for track 3) allows.
            public static let tooLong = Self(rawValue: "too-long")

            /// The PAN has this many digits instead of 8 to 19.
            public static let invalidPANLength = Self(rawValue: "invalid-panlength")

            /// The PAN character at this offset is not a digit.
            public static let nonDigitInPAN = Self(rawValue: "non-digit-in-pan")

            /// The field separator after this field is missing.
            public static let missingSeparator = Self(rawValue: "missing-separator")

            /// At this offset there is neither a valid `YYMM` (month 01–12) nor the separator marking it absent.
            public static let invalidExpiry = Self(rawValue: "invalid-expiry")

            /// At this offset there are neither three digits nor the separator marking the service code absent.
            public static let invalidServiceCode = Self(rawValue: "invalid-service-code")

            /// The cardholder name has this many characters instead of 2 to 26.
            public static let invalidNameLength = Self(rawValue: "invalid-name-length")

            /// The character at this offset is outside the track's character set (or is a separator or sentinel).
            public static let illegalCharacter = Self(rawValue: "illegal-character")
        }

        enum Storage: Sendable, Hashable {
            case missingStartSentinel
            case missingEndSentinel
            case dataAfterEndSentinel(offset: Int)
            case unsupportedFormatCode
            case tooLong(length: Int, maximum: Int)
            case invalidPANLength(Int)
            case nonDigitInPAN(offset: Int)
            case missingSeparator(after: Field)
            case invalidExpiry(offset: Int)
            case invalidServiceCode(offset: Int)
            case invalidNameLength(Int)
            case illegalCharacter(offset: Int, field: Field)

            var code: Code {
                switch self {
                case .missingStartSentinel: .missingStartSentinel
                case .missingEndSentinel: .missingEndSentinel
                case .dataAfterEndSentinel: .dataAfterEndSentinel
                case .unsupportedFormatCode: .unsupportedFormatCode
                case .tooLong: .tooLong
                case .invalidPANLength: .invalidPANLength
                case .nonDigitInPAN: .nonDigitInPAN
                case .missingSeparator: .missingSeparator
                case .invalidExpiry: .invalidExpiry
                case .invalidServiceCode: .invalidServiceCode
                case .invalidNameLength: .invalidNameLength
                case .illegalCharacter: .illegalCharacter
                }
            }
        }
    }

    /// The track, what is wrong and where, e.g. `track 2 PAN character at offset 5 is not a digit`;
    /// never the track's characters.
    public var description: String {
        let detail: String
        switch problem.storage {
        case .missingStartSentinel:
            detail = "does not begin with the start sentinel '\(track == 1 ? "%" : ";")'"
        case .missingEndSentinel:
            detail = "has no end sentinel '?'"
        case .dataAfterEndSentinel(let offset):
            detail = "has characters after the end sentinel, from offset \(offset)"
        case .unsupportedFormatCode:
            detail = "format code at offset 1 is not 'B'"
        case .tooLong(let length, let maximum):
            detail = "is \(length) characters long; at most \(maximum) are allowed (sentinels included, LRC excluded)"
        case .invalidPANLength(let count):
            detail = "PAN has \(count) digits; ISO/IEC 7812-1 allows 8–19"
        case .nonDigitInPAN(let offset):
            detail = "PAN character at offset \(offset) is not a digit"
        case .missingSeparator(let field):
            detail = "has no field separator '\(track == 1 ? "^" : "=")' after the \(field.rawValue)"
        case .invalidExpiry(let offset):
            detail = "expiry at offset \(offset) is neither YYMM with month 01–12 nor a separator"
        case .invalidServiceCode(let offset):
            detail = "service code at offset \(offset) is neither three digits nor a separator"
        case .invalidNameLength(let count):
            detail = "cardholder name has \(count) characters; ISO/IEC 7813 allows 2–26"
        case .illegalCharacter(let offset, let field):
            detail = "\(field.rawValue) character at offset \(offset) is not in the track \(track) character set"
        }
        return "track \(track) \(detail)"
    }
}
