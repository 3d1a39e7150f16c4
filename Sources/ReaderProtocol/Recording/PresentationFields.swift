extension ReaderCommand {
    /// The decoded fields tools print for this command (names as in the README), card data
    /// masked unless `revealingCardData`.
    public func fields(revealingCardData reveal: Bool = false) -> [String: String] {
        var fields = MessageFields(reveal: reveal)
        fields.add(self)
        return fields.values
    }
}

extension ResponseBody {
    /// The decoded fields tools print for this response body (names as in the README),
    /// card data masked unless `revealingCardData`.
    public func fields(revealingCardData reveal: Bool = false) -> [String: String] {
        var fields = MessageFields(reveal: reveal)
        fields.add(self)
        return fields.values
    }
}

extension ReaderEvent {
    /// The decoded fields tools print for this event (names as in the README).
    public var fields: [String: String] {
        var fields = MessageFields(reveal: false)
        fields.add(self)
        return fields.values
    }
}
