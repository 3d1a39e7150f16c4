/// The three-digit service code of a magnetic stripe (ISO/IEC 7813 §10.4, after ISO/IEC 7811).
///
/// Digit 1: interchange and technology; digit 2: authorisation processing;
/// digit 3: allowed services and PIN requirements.
public struct ServiceCode: Sendable, Hashable {
    /// The three digits, each 0–9.
    public let digits: (first: Int, second: Int, third: Int)

    /// Validates three ASCII digits, e.g. `"201"`.
    public init(_ code: some StringProtocol) throws(ServiceCodeError) {
        try self.init(asciiBytes: Array(code.utf8))
    }

    init(asciiBytes bytes: some Collection<UInt8>) throws(ServiceCodeError) {
        let values = bytes.compactMap(\.asciiDigitValue)
        guard bytes.count == 3, values.count == 3 else { throw .notThreeDigits }
        digits = (values[0], values[1], values[2])
    }

    /// Whether digit 1 is 2 or 6: the card carries a chip, so a terminal that can read chips
    /// must ask for the chip instead of accepting a swipe (no "fallback" to the stripe).
    public var chipCardPresent: Bool { digits.first == 2 || digits.first == 6 }

    /// Digit 1: where the card may be used.
    public var interchange: Interchange {
        switch digits.first {
        case 1, 2: .international
        case 5, 6: .national
        case 7: .privateOnly
        case 9: .test
        default: .reserved
        }
    }

    /// Digit 2 is 2 or 4: authorisation must go online to the issuer.
    public var requiresOnlineAuthorization: Bool { digits.second == 2 || digits.second == 4 }

    /// Digit 3: which services the card allows.
    public var allowedServices: AllowedServices {
        switch digits.third {
        case 0, 1, 6: .noRestrictions
        case 2, 5, 7: .goodsAndServicesOnly
        case 3: .atmOnly
        case 4: .cashOnly
        default: .reserved
        }
    }

    /// Digit 3: whether a PIN is needed.
    public var pinRequirement: PINRequirement {
        switch digits.third {
        case 0, 3, 5: .required
        case 6, 7: .promptIfPINPadPresent
        case 1, 2, 4: .none
        default: .reserved
        }
    }

    /// Meanings of digit 1.
    public enum Interchange: Sendable, Hashable {
        /// 1 or 2: international interchange.
        case international
        /// 5 or 6: national interchange only, except under bilateral agreement.
        case national
        /// 7: private use only, no interchange.
        case privateOnly
        /// 9: test card.
        case test
        /// 0, 3, 4 or 8: reserved for future use.
        case reserved
    }

    /// Meanings of digit 3 for services.
    public enum AllowedServices: Sendable, Hashable {
        /// 0, 1 or 6: no restrictions.
        case noRestrictions
        /// 2, 5 or 7: goods and services only, no cash.
        case goodsAndServicesOnly
        /// Digit 3 is 3: ATM only.
        case atmOnly
        /// Digit 3 is 4: cash only.
        case cashOnly
        /// 8 or 9: reserved for future use.
        case reserved
    }

    /// Meanings of digit 3 for the PIN.
    public enum PINRequirement: Sendable, Hashable {
        /// 0, 3 or 5.
        case required
        /// 6 or 7: prompt for a PIN if a PIN pad is present.
        case promptIfPINPadPresent
        /// 1, 2 or 4.
        case none
        /// 8 or 9.
        case reserved
    }

    /// Whether both service codes have the same three digits.
    public static func == (lhs: ServiceCode, rhs: ServiceCode) -> Bool {
        lhs.digits == rhs.digits
    }

    /// Feeds the three digits to `hasher`, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(digits.first)
        hasher.combine(digits.second)
        hasher.combine(digits.third)
    }
}

extension ServiceCode: CustomStringConvertible {
    /// The three digits, e.g. `201`.
    public var description: String { "\(digits.first)\(digits.second)\(digits.third)" }
}

/// Why a value is not a service code.
public struct ServiceCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// Always `service code is not three digits`; never the value.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// The value is not exactly three ASCII digits.
    public static let notThreeDigits = Self(.notThreeDigits)

    /// What is wrong, as a stable identifier (`not-three-digits`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The value is not exactly three ASCII digits.
        public static let notThreeDigits = Self(rawValue: "not-three-digits")
    }

    enum Storage: Sendable, Hashable {
        case notThreeDigits

        var code: Code {
            switch self {
            case .notThreeDigits: .notThreeDigits
            }
        }

        var description: String { "service code is not three digits" }
    }
}
