/// Data elements whose bits each mean something, with the meaning of every defined bit
/// (EMV Book 3 Annex C, Book 4 Annex A, and EMV Book A / the Visa kernel for TTQ and CTQ).
/// Bits are named as EMV names them: byte 1 first, bit 8 the most significant.
enum EMVBitField: Sendable, Hashable {
    case applicationInterchangeProfile
    case applicationUsageControl
    case terminalVerificationResults
    case transactionStatusInformation
    case terminalCapabilities
    case terminalTransactionQualifiers
    case cardTransactionQualifiers

    /// The meanings of the bits set in `bytes`, in order; a set bit the field does not
    /// define reads `byte N bit M (RFU)`.
    func meanings(of bytes: [UInt8]) -> [String] {
        var meanings: [String] = []
        for (index, byte) in bytes.enumerated() {
            for bit in stride(from: 8, through: 1, by: -1) where byte & (1 << (bit - 1)) != 0 {
                meanings.append(names[Position(byte: index + 1, bit: bit)] ?? "byte \(index + 1) bit \(bit) (RFU)")
            }
        }
        return meanings
    }

    private struct Position: Hashable {
        let byte: Int
        let bit: Int
    }

    private var names: [Position: String] {
        switch self {
        case .applicationInterchangeProfile: Self.aip
        case .applicationUsageControl: Self.auc
        case .terminalVerificationResults: Self.tvr
        case .transactionStatusInformation: Self.tsi
        case .terminalCapabilities: Self.terminalCapabilityBits
        case .terminalTransactionQualifiers: Self.ttq
        case .cardTransactionQualifiers: Self.ctq
        }
    }

    private static func table(_ rows: [(Int, Int, String)]) -> [Position: String] {
        Dictionary(uniqueKeysWithValues: rows.map { (Position(byte: $0.0, bit: $0.1), $0.2) })
    }

    /// Book 3 Table C1, and Book C-2 for byte 2.
    private static let aip = table([
        (1, 7, "SDA supported"),
        (1, 6, "DDA supported"),
        (1, 5, "Cardholder verification is supported"),
        (1, 4, "Terminal risk management is to be performed"),
        (1, 3, "Issuer authentication is supported"),
        (1, 1, "CDA supported"),
        // Byte 2 is RFU for contact cards; the contactless kernels (EMV Book C-2) use these.
        (2, 8, "EMV mode is supported (contactless)"),
        (2, 1, "Relay resistance protocol is supported (contactless)"),
    ])

    /// Book 3 Table C2.
    private static let auc = table([
        (1, 8, "Valid for domestic cash transactions"),
        (1, 7, "Valid for international cash transactions"),
        (1, 6, "Valid for domestic goods"),
        (1, 5, "Valid for international goods"),
        (1, 4, "Valid for domestic services"),
        (1, 3, "Valid for international services"),
        (1, 2, "Valid at ATMs"),
        (1, 1, "Valid at terminals other than ATMs"),
        (2, 8, "Domestic cashback allowed"),
        (2, 7, "International cashback allowed"),
    ])

    /// Book 3 Table C5 (also the layout of the Issuer and Terminal Action Codes).
    private static let tvr = table([
        (1, 8, "Offline data authentication was not performed"),
        (1, 7, "SDA failed"),
        (1, 6, "ICC data missing"),
        (1, 5, "Card appears on terminal exception file"),
        (1, 4, "DDA failed"),
        (1, 3, "CDA failed"),
        (1, 2, "SDA selected"),
        (2, 8, "ICC and terminal have different application versions"),
        (2, 7, "Expired application"),
        (2, 6, "Application not yet effective"),
        (2, 5, "Requested service not allowed for card product"),
        (2, 4, "New card"),
        (3, 8, "Cardholder verification was not successful"),
        (3, 7, "Unrecognised CVM"),
        (3, 6, "PIN Try Limit exceeded"),
        (3, 5, "PIN entry required and PIN pad not present or not working"),
        (3, 4, "PIN entry required, PIN pad present, but PIN was not entered"),
        (3, 3, "Online PIN entered"),
        (4, 8, "Transaction exceeds floor limit"),
        (4, 7, "Lower consecutive offline limit exceeded"),
        (4, 6, "Upper consecutive offline limit exceeded"),
        (4, 5, "Transaction selected randomly for online processing"),
        (4, 4, "Merchant forced transaction online"),
        (5, 8, "Default TDOL used"),
        (5, 7, "Issuer authentication failed"),
        (5, 6, "Script processing failed before final GENERATE AC"),
        (5, 5, "Script processing failed after final GENERATE AC"),
    ])

    /// Book 3 Table C6.
    private static let tsi = table([
        (1, 8, "Offline data authentication was performed"),
        (1, 7, "Cardholder verification was performed"),
        (1, 6, "Card risk management was performed"),
        (1, 5, "Issuer authentication was performed"),
        (1, 4, "Terminal risk management was performed"),
        (1, 3, "Script processing was performed"),
    ])

    /// Book 4 Table A2 (card data input, CVM and security capabilities).
    private static let terminalCapabilityBits = table([
        (1, 8, "Manual key entry"),
        (1, 7, "Magnetic stripe"),
        (1, 6, "IC with contacts"),
        (2, 8, "Plaintext PIN for ICC verification"),
        (2, 7, "Enciphered PIN for online verification"),
        (2, 6, "Signature (paper)"),
        (2, 5, "Enciphered PIN for offline verification"),
        (2, 4, "No CVM required"),
        (3, 8, "SDA"),
        (3, 7, "DDA"),
        (3, 6, "Card capture"),
        (3, 4, "CDA"),
    ])

    /// EMV Book A / Visa contactless kernel (Kernel 3).
    private static let ttq = table([
        (1, 8, "Mag-stripe mode supported"),
        (1, 6, "EMV mode supported"),
        (1, 5, "EMV contact chip supported"),
        (1, 4, "Offline-only reader"),
        (1, 3, "Online PIN supported"),
        (1, 2, "Signature supported"),
        (1, 1, "Offline Data Authentication for Online Authorizations supported"),
        (2, 8, "Online cryptogram required"),
        (2, 7, "CVM required"),
        (2, 6, "(Contact Chip) Offline PIN supported"),
        (3, 8, "Issuer Update Processing supported"),
        (3, 7, "Consumer Device CVM supported"),
    ])

    /// Visa contactless kernel (Kernel 3).
    private static let ctq = table([
        (1, 8, "Online PIN Required"),
        (1, 7, "Signature Required"),
        (1, 6, "Go Online if Offline Data Authentication Fails and Reader is online capable"),
        (1, 5, "Switch Interface if Offline Data Authentication fails and Reader supports contact chip"),
        (1, 4, "Go Online if Application Expired"),
        (1, 3, "Switch Interface for Cash Transactions"),
        (1, 2, "Switch Interface for Cashback Transactions"),
        (2, 8, "Consumer Device CVM Performed"),
        (2, 7, "Card supports Issuer Update Processing at the POS"),
    ])
}
