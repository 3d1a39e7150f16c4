/// A card's expiry month, as a track or chip stores it (`YYMM`, years 2000–2099).
///
/// A card is valid through the last day of its expiry month.
public struct ExpiryDate: Sendable, Hashable, Comparable {
    /// The four-digit year, 2000–2099.
    public let year: Int
    /// The month, 1–12.
    public let month: Int

    /// Validates a year (2000–2099) and a month (1–12).
    public init(year: Int, month: Int) throws(ExpiryDateError) {
        guard (2000...2099).contains(year) else { throw .yearOutOfRange(year) }
        guard (1...12).contains(month) else { throw .monthOutOfRange(month) }
        self.year = year
        self.month = month
    }

    /// Parses the four ASCII digits `YYMM` of a magnetic stripe track (ISO/IEC 7813), `YY` read as 20YY.
    public init(yymm: some StringProtocol) throws(ExpiryDateError) {
        try self.init(yymmBytes: Array(yymm.utf8))
    }

    init(yymmBytes bytes: some Collection<UInt8>) throws(ExpiryDateError) {
        guard bytes.count == 4 else { throw .notFourDigits }
        var values: [Int] = []
        for byte in bytes {
            guard let value = byte.asciiDigitValue else { throw .notFourDigits }
            values.append(value)
        }
        try self.init(year: 2000 + values[0] * 10 + values[1], month: values[2] * 10 + values[3])
    }

    /// The `YYMM` form a track stores.
    public var yymm: String {
        let yy = year % 100
        return (yy < 10 ? "0" : "") + "\(yy)" + (month < 10 ? "0" : "") + "\(month)"
    }

    /// Whether the card has expired in the given year and month: true from the month after expiry.
    public func isExpired(inYear year: Int, month: Int) -> Bool {
        (year, month) > (self.year, self.month)
    }

    /// Whether `lhs` is an earlier month than `rhs`.
    public static func < (lhs: ExpiryDate, rhs: ExpiryDate) -> Bool {
        (lhs.year, lhs.month) < (rhs.year, rhs.month)
    }
}

extension ExpiryDate: CustomStringConvertible {
    /// `MM/YY`, as printed on cards.
    public var description: String {
        let yymm = yymm
        return "\(yymm.suffix(2))/\(yymm.prefix(2))"
    }
}

/// Why a value is not an expiry date.
public struct ExpiryDateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What is wrong, e.g. `expiry month 13 is not 01–12`.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// `YYMM` is not exactly four ASCII digits.
    public static let notFourDigits = Self(.notFourDigits)

    /// The month is not 1–12.
    public static func monthOutOfRange(_ month: Int) -> Self {
        Self(.monthOutOfRange(month))
    }

    /// The year is not 2000–2099.
    public static func yearOutOfRange(_ year: Int) -> Self {
        Self(.yearOutOfRange(year))
    }

    /// What is wrong, as a stable identifier (`not-four-digits`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// `YYMM` is not exactly four ASCII digits.
        public static let notFourDigits = Self(rawValue: "not-four-digits")

        /// The month is not 1–12.
        public static let monthOutOfRange = Self(rawValue: "month-out-of-range")

        /// The year is not 2000–2099.
        public static let yearOutOfRange = Self(rawValue: "year-out-of-range")
    }

    enum Storage: Sendable, Hashable {
        case notFourDigits
        case monthOutOfRange(Int)
        case yearOutOfRange(Int)

        var code: Code {
            switch self {
            case .notFourDigits: .notFourDigits
            case .monthOutOfRange: .monthOutOfRange
            case .yearOutOfRange: .yearOutOfRange
            }
        }

        var description: String {
            switch self {
            case .notFourDigits: "expiry date is not four digits YYMM"
            case .monthOutOfRange(let month): "expiry month \(month) is not 01–12"
            case .yearOutOfRange(let year): "expiry year \(year) is not 2000–2099"
            }
        }
    }
}
