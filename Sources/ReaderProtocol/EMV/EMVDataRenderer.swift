/// Shows EMV data objects by name, with their values decoded and card data masked by tag.
///
/// The policy (Docs/emv-data.md):
/// - a tag's ``CardDataProtection`` decides: the PAN (`5A`) shows its first six and last four
///   digits; track data (`56`, `57`, `9F6B`) shows as a swiped track does (card number masked,
///   expiry and service code); the cardholder name, discretionary data and other cardholder
///   data show only their length; PIN data never shows;
/// - a tag outside the catalogue shows only its length, except inside an FCI template (`6F`)
///   that is the data's outermost object — the answer to SELECT, which EMV fills with
///   application selection data — and outside its issuer discretionary data (`BF0C`);
/// - everything else (AIDs, labels, AFL, DOLs, CVM lists, country and currency codes, …) is
///   shown in full.
///
/// ``revealsCardData`` lifts the masking, except for PIN data.
public struct EMVDataRenderer: Sendable {
    /// Whether card data is shown in full.
    public var revealsCardData: Bool

    /// A renderer that masks card data unless `revealingCardData` is true.
    public init(revealingCardData: Bool = false) {
        revealsCardData = revealingCardData
    }

    /// The descriptions of `objects`, in order, nested as they are.
    public func describe(_ objects: [BERTLV]) -> [EMVDataElementDescription] {
        let context = Context(
            atTopLevel: true, insideFileControlInformation: false, currencyExponent: Self.currencyExponent(in: objects))
        return objects.map { describe($0, context) }
    }

    /// The descriptions of the data objects `bytes` hold, or nil when they are not BER-TLV
    /// (such data is the caller's to hide).
    public func describe(encoded bytes: SensitiveBytes) -> [EMVDataElementDescription]? {
        guard !bytes.isEmpty, let objects = try? BERTLV.parse(bytes) else { return nil }
        return describe(objects)
    }

    /// What the values are read with, gathered on the way down.
    struct Context {
        /// Whether the objects are the data's outermost ones.
        var atTopLevel: Bool
        /// Inside `6F`: unknown tags are application selection data.
        var insideFileControlInformation: Bool
        /// The minor-unit digits of amounts, from `5F36` or a known currency code in the same data.
        var currencyExponent: Int?
    }

    private func describe(_ object: BERTLV, _ context: Context) -> EMVDataElementDescription {
        let known = EMVTag.lookup(object.tag)
        var description = EMVDataElementDescription(
            tag: object.tag.description, name: known?.name, length: object.value.count)
        switch object.content {
        case .constructed(let children):
            var inner = context
            inner.atTopLevel = false
            inner.insideFileControlInformation = Self.holdsSelectionData(
                object.tag, atTopLevel: context.atTopLevel, insideSelectionData: context.insideFileControlInformation)
            description.children = children.map { describe($0, inner) }
        case .primitive(let bytes):
            let protection = Self.protection(of: object.tag, insideSelectionData: context.insideFileControlInformation)
            fill(&description, bytes, reading: known?.reading ?? .binary, protection: protection, context)
        }
        return description
    }

    private func fill(
        _ description: inout EMVDataElementDescription, _ bytes: SensitiveBytes, reading: EMVValueReading,
        protection: CardDataProtection, _ context: Context
    ) {
        guard !bytes.isEmpty else { return }
        switch protection {
        case .none:
            show(&description, bytes, reading, context)
        case .hidden where revealsCardData:
            show(&description, bytes, reading, context)
        case .primaryAccountNumber, .trackData:
            if revealsCardData {
                description.value = CardDataValue.revealed(bytes, reading: reading)
                description.hex = HexText.string(bytes.revealed())
            } else if let masked = CardDataValue.masked(bytes, reading: reading) {
                description.value = masked
                description.redaction = .masked
            } else {
                description.redaction = .hidden
            }
        case .hidden, .neverShown:
            description.redaction = .hidden
        }
    }

    private func show(
        _ description: inout EMVDataElementDescription, _ bytes: SensitiveBytes, _ reading: EMVValueReading,
        _ context: Context
    ) {
        let plain = bytes.revealed()
        let reading = reading.read(plain, context)
        description.value = reading.value
        description.details = reading.details.isEmpty ? nil : reading.details
        description.hex = HexText.string(plain)
    }

    /// How much of `tag`'s value may be shown: the catalogue's word, and for a tag outside it,
    /// nothing but its length unless it is application selection data.
    static func protection(of tag: BERTag, insideSelectionData: Bool) -> CardDataProtection {
        EMVTag.lookup(tag)?.protection ?? (insideSelectionData ? .none : .hidden)
    }

    /// Whether the objects inside a template with `tag` are application selection data, whose
    /// tags outside the catalogue may be shown: those of an FCI (`6F`) that is the data's
    /// outermost object — the answer to SELECT (EMV Book 1 §11.3.4) — and of its templates,
    /// except the issuer's discretionary data (`BF0C`), which the issuer fills as it likes.
    static func holdsSelectionData(_ tag: BERTag, atTopLevel: Bool, insideSelectionData: Bool) -> Bool {
        if atTopLevel && tag == EMVTag.fileControlInformationTemplate.tag { return true }
        return insideSelectionData && tag != EMVTag.fciIssuerDiscretionaryData.tag
    }

    /// `5F36` if present, else the exponent of the first known currency code (`5F2A`, `9F42`).
    private static func currencyExponent(in objects: [BERTLV]) -> Int? {
        if let exponent = objects.firstDescendant(withTag: EMVTag.transactionCurrencyExponent.tag)?.value.revealed().first,
            exponent <= 9
        {
            return Int(exponent)
        }
        for tag in [EMVTag.transactionCurrencyCode, .applicationCurrencyCode] {
            if let code = objects.firstDescendant(withTag: tag.tag).flatMap({ BCD.number($0.value.revealed()) }),
                let currency = ISOCodes.currencies[code]
            {
                return currency.exponent
            }
        }
        return nil
    }
}

extension Sequence<BERTLV> {
    /// The objects as indented lines by name, card data masked (``EMVDataRenderer``).
    public func renderedLines(revealingCardData: Bool = false) -> [String] {
        EMVDataRenderer(revealingCardData: revealingCardData).describe(Array(self)).lines()
    }
}
