/// Why a magnetic stripe track could not be parsed. Offsets count from the start sentinel (0).
/// Neither the description nor any case carries track contents.
public struct MagneticTrackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The track: 1, 2 or 3.
    public let track: Int
    /// What is wrong.
    public let problem: Problem

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
    public enum Problem: Sendable, Hashable {
        /// The first character is not the start sentinel (`%` on track 1, `;` on tracks 2 and 3).
        case missingStartSentinel
        /// There is no end sentinel `?`.
        case missingEndSentinel
        /// Characters follow the first end sentinel, starting at this offset.
        case dataAfterEndSentinel(offset: Int)
        /// Track 1's format code (offset 1) is not `B`.
        case unsupportedFormatCode
        /// The track is longer than ISO/IEC 7813 (or ISO/IEC 4909 for track 3) allows.
        case tooLong(length: Int, maximum: Int)
        /// The PAN has this many digits instead of 8 to 19.
        case invalidPANLength(Int)
        /// The PAN character at this offset is not a digit.
        case nonDigitInPAN(offset: Int)
        /// The field separator after this field is missing.
        case missingSeparator(after: Field)
        /// At this offset there is neither a valid `YYMM` (month 01–12) nor the separator marking it absent.
        case invalidExpiry(offset: Int)
        /// At this offset there are neither three digits nor the separator marking the service code absent.
        case invalidServiceCode(offset: Int)
        /// The cardholder name has this many characters instead of 2 to 26.
        case invalidNameLength(Int)
        /// The character at this offset is outside the track's character set (or is a separator or sentinel).
        case illegalCharacter(offset: Int, field: Field)
    }

    /// The track, what is wrong and where, e.g. `track 2 PAN character at offset 5 is not a digit`;
    /// never the track's characters.
    public var description: String {
        let detail: String
        switch problem {
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
