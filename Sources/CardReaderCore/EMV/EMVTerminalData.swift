#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ReaderProtocol

/// The terminal's side of an EMV read: the values a card's PDOL may ask for in GET
/// PROCESSING OPTIONS. Defaults describe a zero-amount inquiry in US dollars.
public struct EMVTerminalData: Sendable, Hashable {
    /// Tag 9F02, amount in minor units.
    public var amountAuthorised: UInt64 = 0
    /// Tag 9F1A, ISO 3166 numeric.
    public var countryCode: UInt16 = 840
    /// Tag 5F2A, ISO 4217 numeric.
    public var currencyCode: UInt16 = 840
    /// Tag 9A, the transaction date; today (UTC) by default.
    public var transactionDate = TransactionDate.today
    /// Tag 9C: 00 goods and services.
    public var transactionType: UInt8 = 0x00
    /// Tag 9F35: 22 attended, offline with online capability.
    public var terminalType: UInt8 = 0x22
    /// Tag 9F33.
    public var terminalCapabilities: [UInt8] = [0xE0, 0xF8, 0xC8]
    /// Tag 9F66, for cards that ask (contactless kernels).
    public var terminalTransactionQualifiers: [UInt8] = [0x36, 0x00, 0x40, 0x00]
    /// Tag 9F37; fresh for every read unless set.
    public var unpredictableNumber: [UInt8]?

    /// The defaults: a zero-amount inquiry in US dollars, dated today (UTC).
    public init() {}

    /// The value of `tag`, in its EMV format, or nil for a tag the terminal does not know
    /// (the DOL then gets zeros, as EMV Book 3 §5.4 says).
    func value(for tag: BERTag) -> [UInt8]? {
        switch tag.value {
        case 0x9F02: Self.bcd(amountAuthorised, bytes: 6)
        case 0x9F03: Self.bcd(0, bytes: 6)
        case 0x9F1A: Self.bcd(UInt64(countryCode), bytes: 2)
        case 0x5F2A: Self.bcd(UInt64(currencyCode), bytes: 2)
        case 0x9A:
            [UInt8(transactionDate.year % 100), UInt8(transactionDate.month), UInt8(transactionDate.day)]
                .flatMap { Self.bcd(UInt64($0), bytes: 1) }
        case 0x9C: [transactionType]
        case 0x9F35: [terminalType]
        case 0x9F33: terminalCapabilities
        case 0x9F66: terminalTransactionQualifiers
        case 0x95: [0, 0, 0, 0, 0]
        case 0x9F37: unpredictableNumber ?? (0..<4).map { _ in UInt8.random(in: 0...255) }
        default: nil
        }
    }

    /// A calendar date, as tag 9A carries it (YYMMDD).
    public struct TransactionDate: Sendable, Hashable {
        /// The year, e.g. 2025; tag 9A carries its last two digits.
        public var year: Int
        /// The month, 1–12.
        public var month: Int
        /// The day of the month, 1–31.
        public var day: Int

        /// The date as given; it is not checked against the calendar.
        public init(year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }

        /// Today in UTC.
        public static var today: TransactionDate {
            var now = time(nil)
            var parts = tm()
            guard gmtime_r(&now, &parts) != nil else { return TransactionDate(year: 2000, month: 1, day: 1) }
            return TransactionDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
        }
    }

    /// `value` as packed BCD, right-aligned in `bytes` bytes.
    static func bcd(_ value: UInt64, bytes: Int) -> [UInt8] {
        var remaining = value
        var result = [UInt8](repeating: 0, count: bytes)
        for index in stride(from: bytes - 1, through: 0, by: -1) {
            let low = UInt8(remaining % 10)
            remaining /= 10
            let high = UInt8(remaining % 10)
            remaining /= 10
            result[index] = high << 4 | low
        }
        return result
    }
}
