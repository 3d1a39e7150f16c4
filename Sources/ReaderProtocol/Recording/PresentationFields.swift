extension ReaderCommand {
    /// The decoded fields tools print for this command (names as in
    /// Docs/decoding-recordings.md), card data masked unless `revealingCardData`.
    public func fields(revealingCardData reveal: Bool = false) -> [String: FieldValue] {
        var fields = MessageFields(reveal: reveal)
        fields.add(self)
        return fields.values
    }
}

extension ResponseBody {
    /// The decoded fields tools print for this response body (names as in
    /// Docs/decoding-recordings.md), card data masked unless `revealingCardData`.
    public func fields(revealingCardData reveal: Bool = false) -> [String: FieldValue] {
        var fields = MessageFields(reveal: reveal)
        fields.add(self)
        return fields.values
    }
}

extension ResponseBody {
    /// An APDU response's BER-TLV data by name, card data masked unless `revealingCardData`;
    /// nil for other bodies and for data that is not BER-TLV.
    public func dataObjects(revealingCardData reveal: Bool = false) -> [EMVDataElementDescription]? {
        guard case .apdu(let apdu) = self else { return nil }
        return apdu.describedData(revealingCardData: reveal)
    }
}

extension ReaderEvent {
    /// The decoded fields tools print for this event (names as in Docs/decoding-recordings.md).
    public var fields: [String: FieldValue] {
        var fields = MessageFields(reveal: false)
        fields.add(self)
        return fields.values
    }
}
