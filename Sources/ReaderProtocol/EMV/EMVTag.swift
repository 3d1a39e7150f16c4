/// An EMV data element the SDK knows by name: its tag, name, source, format, how its value
/// reads, and whether it is card data (EMV Book 3 Annex A; `56`, `9F66`, `9F6B`, `9F6C` from
/// the contactless kernel specifications).
///
/// ``EMVDataRenderer`` uses the catalogue to show data objects by name with their values
/// decoded and card data masked by ``protection``.
public struct EMVTag: Sendable, Hashable {
    /// The tag.
    public let tag: BERTag
    /// The name EMV gives the data element.
    public let name: String
    /// Who provides the value: the card, the terminal or the issuer.
    public let source: EMVDataSource
    /// The format, which decides padding and truncation in a ``DataObjectList``.
    public let format: EMVDataFormat
    /// How much of the value a renderer may show.
    public let protection: CardDataProtection
    /// How a renderer reads the value.
    let reading: EMVValueReading

    init(
        _ tag: UInt32, _ name: String, _ source: EMVDataSource, _ format: EMVDataFormat, _ reading: EMVValueReading,
        protection: CardDataProtection = .none
    ) {
        self.tag = BERTag(unchecked: tag)
        self.name = name
        self.source = source
        self.format = format
        self.reading = reading
        self.protection = protection
    }

    /// Whether the value is card data (PAN, track data, cardholder name, discretionary data,
    /// PIN data) that must never be shown unmasked by default.
    public var isSensitive: Bool { protection != .none }

    /// The catalogue entry for `tag`, or `nil` for a tag the SDK does not know.
    public static func lookup(_ tag: BERTag) -> EMVTag? {
        byTag[tag]
    }

    /// Whether a renderer must mask the value of `tag`. Tags outside the catalogue count as
    /// sensitive: proprietary data objects cannot be vetted.
    public static func isSensitive(_ tag: BERTag) -> Bool {
        lookup(tag)?.isSensitive ?? true
    }

    private static let byTag = Dictionary(all.map { ($0.tag, $0) }, uniquingKeysWith: { first, _ in first })
}

extension EMVTag: CustomStringConvertible {
    /// E.g. `9F26 (Application Cryptogram)`.
    public var description: String { "\(tag) (\(name))" }
}

/// Who provides a data element's value (EMV Book 3 Annex A, "Source").
public enum EMVDataSource: String, Sendable, Hashable, Codable {
    /// The card (ICC).
    case card
    /// The terminal.
    case terminal
    /// The issuer, through the terminal.
    case issuer
}

/// How much of a data element's value may be shown without an explicit reveal.
///
/// The policy follows PCI DSS v4.0 requirement 3.4.1: a card number is shown at most as its
/// first six and last four digits; other cardholder data (name, discretionary data, PIN data)
/// is not shown at all.
public enum CardDataProtection: String, Sendable, Hashable, Codable {
    /// Not card data: shown in full.
    case none
    /// A card number (`5A`): first six and last four digits.
    case primaryAccountNumber = "card-number"
    /// Track data (`56`, `57`, `9F6B`): as a swiped track shows — the card number masked,
    /// expiry and service code in clear, discretionary data and name hidden.
    case trackData = "track"
    /// Cardholder data shown only when revealed: its length, not its value.
    case hidden
    /// PIN-related data: never shown, not even when revealing.
    case neverShown = "never-shown"
}
