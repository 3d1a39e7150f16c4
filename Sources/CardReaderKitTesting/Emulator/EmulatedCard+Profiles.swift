import ReaderProtocol

/// The built-in test cards: public test card numbers, no real cardholder data. Each one is
/// mirrored by a file in `Fixtures/cards/` (a test checks they decode to the same value).
extension EmulatedCard {
    /// Every built-in profile, for `readerctl --emulated --card NAME`.
    public static let builtIn: [EmulatedCard] = [visaTest, mastercardTest, visaSwipeOnly]

    /// The built-in profile called `name`, e.g. `visa-test`.
    public static func builtIn(named name: String) -> EmulatedCard? {
        builtIn.first { $0.name == name }
    }

    /// A Visa-like chip card with a stripe: PAN 4111 1111 1111 1111, DOE/JOHN, expiry 2025-12,
    /// service code 201 (2: chip present). AID `A0000000031010` with a 14-byte PDOL.
    public static let visaTest = EmulatedCard(
        name: "visa-test",
        magneticStripe: MagneticStripeData(
            track1: SensitiveBytes("%B4111111111111111^DOE/JOHN^2512201000000000000000?".utf8),
            track2: SensitiveBytes(";4111111111111111=25122010000000000000?".utf8)),
        chip: Chip(
            // The documentation's example ATR (§9).
            answerToReset: [0x3B, 0x68, 0x00, 0x00, 0x00, 0x73, 0xC8, 0x40, 0x13, 0x00, 0x90, 0x00],
            applications: [
                Application(
                    identifier: [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10], label: "VISA CREDIT", priority: 1,
                    processingOptionsDataObjectList: DataObjectList(entries: [
                        .init(tag: EMVTag.amountAuthorised.tag, length: 6),
                        .init(tag: EMVTag.terminalCountryCode.tag, length: 2),
                        .init(tag: EMVTag.transactionCurrencyCode.tag, length: 2),
                        .init(tag: EMVTag.unpredictableNumber.tag, length: 4),
                    ]),
                    interchangeProfile: [0x1C, 0x00],
                    records: [
                        Record(
                            shortFileIdentifier: 1, number: 1,
                            objects: [
                                object(
                                    .track2EquivalentData,
                                    [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0xD2, 0x51, 0x22, 0x01,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0F]),
                                object(.cardholderName, Array("DOE/JOHN".utf8)),
                            ]),
                        Record(
                            shortFileIdentifier: 1, number: 2,
                            objects: [
                                object(.applicationPAN, [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11]),
                                object(.applicationExpirationDate, [0x25, 0x12, 0x31]),
                                object(.applicationEffectiveDate, [0x20, 0x01, 0x01]),
                                object(.issuerCountryCode, [0x08, 0x40]),
                                object(.applicationPANSequenceNumber, [0x01]),
                                object(.serviceCode, [0x02, 0x01]),
                                object(.applicationUsageControl, [0xFF, 0x00]),
                                object(.applicationVersionNumberCard, [0x00, 0x96]),
                            ]),
                        Record(
                            shortFileIdentifier: 2, number: 1,
                            objects: [
                                object(.cdol1, cdol1), object(.cdol2, cdol2), object(.cvmList, cvmList),
                                object(.issuerActionCodeDefault, [0xF0, 0x40, 0x00, 0x88, 0x00]),
                                object(.issuerActionCodeDenial, [0x00, 0x10, 0x00, 0x00, 0x00]),
                                object(.issuerActionCodeOnline, [0xF0, 0x40, 0x00, 0x98, 0x00]),
                            ]),
                    ])
            ]))

    /// A Mastercard-like chip card with a stripe: PAN 5555 5555 5555 4444, TEST/CARD, expiry
    /// 2027-12, service code 201. AID `A0000000041010`, label MASTERCARD, no PDOL.
    public static let mastercardTest = EmulatedCard(
        name: "mastercard-test",
        magneticStripe: MagneticStripeData(
            track1: SensitiveBytes("%B5555555555554444^TEST/CARD^2712201000000000000000?".utf8),
            track2: SensitiveBytes(";5555555555554444=27122010000000000000?".utf8)),
        chip: Chip(
            answerToReset: [0x3B, 0x6E, 0x00, 0x00, 0x80, 0x31, 0x80, 0x66, 0xB0, 0x84, 0x12, 0x01, 0x6E, 0x01,
                            0x83, 0x00, 0x90, 0x00],
            applications: [
                Application(
                    identifier: [0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10], label: "MASTERCARD", priority: 1,
                    interchangeProfile: [0x18, 0x00],
                    records: [
                        Record(
                            shortFileIdentifier: 1, number: 1,
                            objects: [
                                object(
                                    .track2EquivalentData,
                                    [0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x44, 0x44, 0xD2, 0x71, 0x22, 0x01,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0F]),
                                object(.cardholderName, Array("TEST/CARD".utf8)),
                            ]),
                        Record(
                            shortFileIdentifier: 2, number: 1,
                            objects: [
                                object(.applicationPAN, [0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x44, 0x44]),
                                object(.applicationExpirationDate, [0x27, 0x12, 0x31]),
                                object(.applicationEffectiveDate, [0x23, 0x01, 0x01]),
                                object(.issuerCountryCode, [0x08, 0x40]),
                                object(.applicationPANSequenceNumber, [0x00]),
                                object(.applicationUsageControl, [0xFF, 0x00]),
                                object(.cdol1, cdol1), object(.cdol2, cdol2), object(.cvmList, cvmList),
                            ]),
                        Record(
                            shortFileIdentifier: 2, number: 2,
                            objects: [
                                object(.issuerActionCodeDefault, [0xFC, 0x50, 0xA0, 0x00, 0x00]),
                                object(.issuerActionCodeDenial, [0x00, 0x00, 0x00, 0x00, 0x00]),
                                object(.issuerActionCodeOnline, [0xFC, 0x50, 0x80, 0x88, 0x00]),
                                object(.applicationCurrencyCode, [0x08, 0x40]),
                                object(.applicationVersionNumberCard, [0x00, 0x02]),
                            ]),
                    ])
            ]))

    /// A stripe-only card with the documentation's example tracks (§9): PAN 4111 1111 1111
    /// 1111, DOE/JOHN, expiry 2025-12, service code 101 (no chip).
    public static let visaSwipeOnly = EmulatedCard(
        name: "visa-swipe-only",
        magneticStripe: MagneticStripeData(
            track1: SensitiveBytes("%B4111111111111111^DOE/JOHN^2512101000000000000000?".utf8),
            track2: SensitiveBytes(";4111111111111111=25121010000000000000?".utf8)))

    /// CDOL1 of both chip profiles: amount, other amount, country, TVR, currency, date, type, UN.
    private static let cdol1: [UInt8] = [
        0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01,
        0x9F, 0x37, 0x04,
    ]
    /// CDOL2: authorisation response code, TVR, unpredictable number.
    private static let cdol2: [UInt8] = [0x8A, 0x02, 0x95, 0x05, 0x9F, 0x37, 0x04]
    /// CVM list: no amounts; enciphered PIN online, signature, no CVM, each "if terminal supports".
    private static let cvmList: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42, 0x03, 0x1E, 0x03, 0x1F, 0x03,
    ]

    private static func object(_ tag: EMVTag, _ value: [UInt8]) -> BERTLV {
        BERTLV(tag: tag.tag, value: value)
    }
}
