import ReaderProtocol

/// What an EMV read found on a chip card. The card number and name print masked; the raw
/// data objects stay reachable for callers that need more.
public struct EMVCard: Sendable, Hashable {
    /// The selected application's identifier (AID), e.g. `A0000000031010`.
    public var applicationIdentifier: [UInt8]
    /// The application label (tag 50), e.g. `VISA CREDIT`.
    public var applicationLabel: String?
    /// Tag 5A, or the PAN inside the track 2 equivalent data (57).
    public var primaryAccountNumber: PrimaryAccountNumber
    /// Tag 5F24 (or the expiry inside 57).
    public var expiry: ExpiryDate?
    /// Tag 5F20, when the card has one.
    public var cardholderName: CardholderName?
    /// Tag 5F34.
    public var panSequenceNumber: UInt8?
    /// The SELECT answer for the application (FCI, tag 6F).
    public var fileControlInformation: [BERTLV]
    /// The GET PROCESSING OPTIONS answer (tag 77 or 80).
    public var processingOptions: [BERTLV]
    /// Every record the AFL named, in order (tag 70 templates).
    public var records: [BERTLV]

    /// The first data object with `tag` in the FCI, the processing options or the records.
    public func dataObject(_ tag: BERTag) -> BERTLV? {
        (fileControlInformation + processingOptions + records).firstDescendant(withTag: tag)
    }

    /// The first data object with the tag written as a number, e.g. `dataObject(0x5A)`; nil
    /// for a number that is not a well-formed tag.
    public func dataObject(_ tag: UInt32) -> BERTLV? {
        (try? BERTag(tag)).flatMap { dataObject($0) }
    }

    /// The payment application the AID names, e.g. `Visa credit or debit` (from ReaderProtocol's
    /// `PaymentApplications`); nil for an AID it does not know.
    public var applicationName: String? { PaymentApplications.name(of: applicationIdentifier) }

    /// The AID in upper-case hex.
    public var applicationIdentifierHex: String {
        applicationIdentifier.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }
}

extension EMVCard: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The AID and application name, the masked PAN, the label, the expiry (`MM/YY`) and the
    /// record count, e.g. `EMVCard(AID A0000000031010 (Visa credit or debit), PAN 411111******1111, label VISA CREDIT, expiry 12/25, 3 records)`;
    /// never the full PAN, the name or any other data object.
    public var description: String {
        let name = applicationName.map { " (\($0))" } ?? ""
        var parts = ["AID \(applicationIdentifierHex)\(name)", "PAN \(primaryAccountNumber.masked)"]
        if let applicationLabel { parts.append("label \(applicationLabel)") }
        if let expiry { parts.append("expiry \(expiry)") }
        parts.append("\(records.count) records")
        return "EMVCard(\(parts.joined(separator: ", ")))"
    }

    /// The same as ``description``: no full PAN, name or other data objects.
    public var debugDescription: String { description }
    /// ``description`` as the only child, so that `dump` and debuggers never show card data.
    public var customMirror: Mirror { Mirror(self, children: ["summary": description]) }
}
