/// The worked examples of the reader's documentation (reader-protocol.md §2 and §9),
/// copied byte for byte. They are the golden values of the frame tests.
enum DocumentedExamples {
    static let readMagneticStripeDefault = hex("02 C1 07 00 02 00 00 FC 34")
    static let getInfoRequest = hex("02 C0 01 00 00 00 54")
    static let cancelRequest = hex("02 C0 02 00 00 59 04")
    static let readMagneticStripe30s = hex("02 C1 07 00 02 00 1E 0F CB")
    static let iccPowerOnNoWait = hex("02 C2 01 00 01 00 23 B2")
    static let iccPowerOnResponse = hex("02 C2 01 00 0D 00 3B 68 00 00 00 73 C8 40 13 00 90 00 C6 20")
    static let atr = hex("3B 68 00 00 00 73 C8 40 13 00 90 00")
    static let selectPPSE = hex("02 C2 02 00 14 00 A4 04 00 0E 32 50 41 59 2E 53 59 53 2E 44 44 46 30 31 00 E5 D3")
    static let selectPPSEAPDU = hex("00 A4 04 00 0E 32 50 41 59 2E 53 59 53 2E 44 44 46 30 31 00")
    static let cardInsertedEvent = hex("02 E0 01 00 00 37 1A")

    /// The READ MAGNETIC STRIPE response for test card 4111 1111 1111 1111, 101 bytes.
    static let swipeResponse = hex("""
        02 C1 07 00 5E 00 33 25 42 34 31 31 31 31 31 31 31 31 31 31
        31 31 31 31 31 5E 44 4F 45 2F 4A 4F 48 4E 5E 32 35 31 32 31
        30 31 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 3F 27 3B
        34 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 3D 32 35 31
        32 31 30 31 30 30 30 30 30 30 30 30 30 30 30 30 30 3F 00 E3
        78
        """)
    static let swipeTrack1 = "%B4111111111111111^DOE/JOHN^2512101000000000000000?"
    static let swipeTrack2 = ";4111111111111111=25121010000000000000?"
}
