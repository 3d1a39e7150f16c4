/// A primary account number (ISO/IEC 7812-1): 8 to 19 decimal digits.
///
/// Its description is always ``masked``; the digits come out only through ``revealed()``.
/// The digits are held in ``SensitiveBytes`` and wiped when the last copy is released.
/// A Luhn failure does not make a PAN invalid here (readers pass such numbers on);
/// check ``passesLuhn`` where it matters.
public struct PrimaryAccountNumber: Sendable, Hashable {
    /// The shortest PAN ISO/IEC 7812-1 allows.
    public static let minimumLength = 8
    /// The longest PAN ISO/IEC 7812-1 allows.
    public static let maximumLength = 19

    /// The digits as ASCII bytes.
    public let digits: SensitiveBytes

    /// Validates `digits`: ASCII `0`–`9` only, 8 to 19 of them.
    public init(digits: SensitiveBytes) throws(PrimaryAccountNumberError) {
        if let offset = digits.withUnsafeBytes({ $0.firstIndex { !$0.isASCIIDigit } }) {
            throw .nonDigit(offset: offset)
        }
        guard (Self.minimumLength...Self.maximumLength).contains(digits.count) else {
            throw .invalidLength(digits.count)
        }
        self.digits = digits
    }

    /// Validates a digit string, e.g. `"4111111111111111"` (no spaces or dashes).
    public init(_ digits: some StringProtocol) throws(PrimaryAccountNumberError) {
        try self.init(digits: SensitiveBytes(digits.utf8))
    }

    /// The number of digits.
    public var digitCount: Int { digits.count }

    /// Whether the last digit is a valid Luhn check digit (ISO/IEC 7812-1 Annex B).
    public var passesLuhn: Bool {
        digits.withUnsafeBytes { Luhn.isValid(asciiDigits: $0) }
    }

    /// The issuer identification number: the first 6 digits.
    public var issuerIdentificationNumber: String { digitString(0..<6) }

    /// The last 4 digits.
    public var lastFour: String { digitString(digitCount - 4..<digitCount) }

    /// The number with the middle digits replaced by `*`, e.g. `411111******1111`.
    ///
    /// At most the first 6 and the last 4 digits show (PCI DSS), and never fewer than
    /// 5 digits are hidden: a short PAN first shows fewer leading digits, then fewer
    /// trailing ones. So 15–19 digits show 6 + 4, 14 show 5 + 4, 13 show 4 + 4, …,
    /// 9 show 0 + 4, and 8 show 0 + 3.
    public var masked: String {
        let hidden = 5
        let trailing = min(4, digitCount - hidden)
        let leading = min(6, digitCount - hidden - trailing)
        return digitString(0..<leading)
            + String(repeating: "*", count: digitCount - leading - trailing)
            + digitString(digitCount - trailing..<digitCount)
    }

    /// The full number. Use only where the digits must leave the SDK.
    public func revealed() -> String {
        digitString(0..<digitCount)
    }

    private func digitString(_ range: Range<Int>) -> String {
        digits.withUnsafeBytes { String(decoding: $0[range.clamped(to: 0..<$0.count)], as: UTF8.self) }
    }
}

extension PrimaryAccountNumber: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The ``masked`` number.
    public var description: String { masked }

    /// The ``masked`` number labelled with the type, e.g. `PrimaryAccountNumber(411111******1111)`.
    public var debugDescription: String { "PrimaryAccountNumber(\(masked))" }

    /// The ``masked`` number only, so that `dump` and debuggers never show the full number.
    public var customMirror: Mirror {
        Mirror(self, children: ["masked": masked], displayStyle: .struct)
    }
}

/// Why a digit string is not a PAN.
public struct PrimaryAccountNumberError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// The digit count found or the offending position, never the digits.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// Not 8 to 19 digits; carries the number of digits found.
    public static func invalidLength(_ count: Int) -> Self {
        Self(.invalidLength(count))
    }

    /// The character at this position (from 0) is not a decimal digit.
    public static func nonDigit(offset: Int) -> Self {
        Self(.nonDigit(offset: offset))
    }

    /// What is wrong, as a stable identifier (`invalid-length`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// Not 8 to 19 digits; carries the number of digits found.
        public static let invalidLength = Self(rawValue: "invalid-length")

        /// The character at this position (from 0) is not a decimal digit.
        public static let nonDigit = Self(rawValue: "non-digit")
    }

    enum Storage: Sendable, Hashable {
        case invalidLength(Int)
        case nonDigit(offset: Int)

        var code: Code {
            switch self {
            case .invalidLength: .invalidLength
            case .nonDigit: .nonDigit
            }
        }

        var description: String {
            switch self {
            case .invalidLength(let count):
                "PAN has \(count) digits; ISO/IEC 7812-1 allows \(PrimaryAccountNumber.minimumLength)–\(PrimaryAccountNumber.maximumLength)"
            case .nonDigit(let offset):
                "PAN character at offset \(offset) is not a decimal digit"
            }
        }
    }
}
