/// Payment applications by AID, from the schemes' published AID lists: exact AIDs first,
/// then the registered application provider (RID, the AID's first 5 bytes).
public enum PaymentApplications {
    /// The application's name, e.g. `Visa credit or debit` for `A0000000031010`, `Visa
    /// application` for another Visa AID; nil for an AID no entry matches.
    public static func name(of aid: [UInt8]) -> String? {
        let hex = HexText.string(aid, separator: "")
        if let exact = byAID[hex] { return exact }
        return byRID[String(hex.prefix(10))].map { "\($0) application" }
    }

    private static let byAID: [String: String] = [
        "A0000000031010": "Visa credit or debit",
        "A0000000032010": "Visa Electron",
        "A0000000033010": "Visa Interlink",
        "A0000000038010": "Visa Plus",
        "A0000000980840": "Visa U.S. Common Debit",
        "A0000000041010": "Mastercard credit or debit",
        "A0000000043060": "Maestro",
        "A0000000046000": "Cirrus",
        "A0000000042203": "Mastercard U.S. Maestro common debit",
        "A0000001523010": "Discover",
        "A0000000651010": "JCB",
        "A000000333010101": "UnionPay debit",
        "A000000333010102": "UnionPay credit",
        "A0000002771010": "Interac",
    ]

    private static let byRID: [String: String] = [
        "A000000003": "Visa",
        "A000000004": "Mastercard",
        "A000000025": "American Express",
        "A000000065": "JCB",
        "A000000152": "Discover",
        "A000000333": "UnionPay",
        "A000000277": "Interac",
    ]
}
