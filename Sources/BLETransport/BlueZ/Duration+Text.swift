extension Duration {
    /// Seconds to a tenth, for messages: `2.8 s`.
    package var secondsText: String {
        let (seconds, attoseconds) = components
        let tenths = seconds * 10 + attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
