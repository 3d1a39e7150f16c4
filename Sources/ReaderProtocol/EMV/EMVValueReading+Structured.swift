/// Readings of values with structure of their own: codes looked up in ISO lists, lists of
/// tags, rules and languages, and bit-packed bytes.
extension EMVValueReading {
    /// An ISO 4217 currency code: `978 (EUR)`.
    static func currency(_ code: Int) -> String {
        ISOCodes.currencies[code].map { "\(threeDigits(code)) (\($0.code))" } ?? threeDigits(code)
    }

    /// An ISO 3166 country code: `250 (FR, France)`.
    static func country(_ code: Int) -> String {
        ISOCodes.countries[code].map { "\(threeDigits(code)) (\($0.code), \($0.name))" } ?? threeDigits(code)
    }

    /// A CVM list (EMV Book 3, 10.5): its amounts, then one rule per line.
    static func cvmList(_ bytes: [UInt8], currencyExponent: Int?) -> [String] {
        guard let list = CardholderVerificationMethodList(parsing: bytes) else {
            return ["malformed: \(bytes.count) bytes is not 8 plus two per rule"]
        }
        let amounts = "Amount X \(amount(Int(list.amountX), currencyExponent)), amount Y \(amount(Int(list.amountY), currencyExponent))"
        return [amounts] + list.rules.map(\.description)
    }

    /// A data object list: the tags and lengths it asks for, each named; nil if malformed.
    static func dataObjectList(_ bytes: [UInt8]) -> Reading? {
        guard let list = try? DataObjectList(parsing: bytes) else { return nil }
        return Reading(
            value: list.description,
            details: list.entries.map { "\($0.tag) \(EMVTag.lookup($0.tag)?.name ?? "(unknown tag)"), \($0.length) bytes" })
    }

    /// A list of tags, each named; nil if malformed.
    static func tagList(_ bytes: [UInt8]) -> Reading? {
        guard let tags = tags(bytes) else { return nil }
        return Reading(
            value: tags.map(\.description).joined(separator: ", "),
            details: tags.map { "\($0) \(EMVTag.lookup($0)?.name ?? "(unknown tag)")" })
    }

    /// Two-letter ISO 639 codes in order of preference: `en, fr`; nil if not such pairs.
    static func languages(_ bytes: [UInt8]) -> String? {
        guard bytes.count % 2 == 0, let text = text(bytes) else { return nil }
        let letters = Array(text)
        return stride(from: 0, to: letters.count, by: 2).map { String(letters[$0..<$0 + 2]) }.joined(separator: ", ")
    }

    /// The last three digits of the BCD value as a service code, explained; nil if not one.
    static func serviceCode(_ bytes: [UInt8]) -> String? {
        guard let digits = BCD.digits(bytes), let code = try? ServiceCode(String(digits.suffix(3))) else { return nil }
        return code.description
    }

    /// An application priority indicator (EMV Book 1, 12.2.3): `priority 1, cardholder
    /// confirmation required`.
    static func priority(_ byte: UInt8) -> String {
        let priority = byte & 0x0F
        var value = priority == 0 ? "no priority" : "priority \(priority)"
        if byte & 0x80 != 0 { value += ", cardholder confirmation required" }
        return value
    }
}
