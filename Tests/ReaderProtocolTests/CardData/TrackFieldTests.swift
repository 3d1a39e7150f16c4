import Testing
@testable import ReaderProtocol

@Suite struct ExpiryDateTests {
    /// ISO/IEC 7813: expiry is YYMM; this SDK reads YY as 20YY.
    @Test func parsesYYMM() throws {
        let date = try ExpiryDate(yymm: "2512")
        #expect(date.year == 2025)
        #expect(date.month == 12)
        #expect(date.yymm == "2512")
        #expect(date.description == "12/25")
        #expect(try ExpiryDate(yymm: "0001") == ExpiryDate(year: 2000, month: 1))
    }

    /// ISO/IEC 7813: month 01–12; anything but four digits is malformed.
    @Test func rejectsBadMonthsAndShapes() {
        #expect(throws: ExpiryDateError.monthOutOfRange(0)) { try ExpiryDate(yymm: "2500") }
        #expect(throws: ExpiryDateError.monthOutOfRange(13)) { try ExpiryDate(yymm: "2513") }
        #expect(throws: ExpiryDateError.notFourDigits) { try ExpiryDate(yymm: "251") }
        #expect(throws: ExpiryDateError.notFourDigits) { try ExpiryDate(yymm: "25a2") }
        #expect(throws: ExpiryDateError.yearOutOfRange(1999)) { try ExpiryDate(year: 1999, month: 1) }
    }

    /// A card is valid through its expiry month (ISO/IEC 7813 "expiration date" convention).
    @Test func expiresAfterTheMonth() throws {
        let date = try ExpiryDate(yymm: "2512")
        #expect(!date.isExpired(inYear: 2025, month: 12))
        #expect(date.isExpired(inYear: 2026, month: 1))
        #expect(!date.isExpired(inYear: 2024, month: 12))
        #expect(try ExpiryDate(yymm: "2511") < date)
    }
}

@Suite struct ServiceCodeTests {
    /// Digit meanings from ISO/IEC 7813 §10.4 (after ISO/IEC 7811-2).
    @Test func chipPresenceFromDigitOne() throws {
        #expect(try ServiceCode("201").chipCardPresent)
        #expect(try ServiceCode("601").chipCardPresent)
        #expect(try !ServiceCode("101").chipCardPresent)
        #expect(try !ServiceCode("501").chipCardPresent)
        #expect(try ServiceCode("201").interchange == .international)
        #expect(try ServiceCode("601").interchange == .national)
        #expect(try ServiceCode("999").interchange == .test)
    }

    /// Digits 2 and 3 per ISO/IEC 7813 §10.4.
    @Test func authorisationAndServices() throws {
        #expect(try ServiceCode("120").requiresOnlineAuthorization)
        #expect(try !ServiceCode("101").requiresOnlineAuthorization)
        #expect(try ServiceCode("120").pinRequirement == .required)
        #expect(try ServiceCode("120").allowedServices == .noRestrictions)
        #expect(try ServiceCode("103").allowedServices == .atmOnly)
        #expect(try ServiceCode("106").pinRequirement == .promptIfPINPadPresent)
        #expect(try ServiceCode("102").pinRequirement == .none)
        #expect(try ServiceCode("102").allowedServices == .goodsAndServicesOnly)
    }

    /// ISO/IEC 7813: the service code is exactly three digits.

    @Test func rejectsAnythingButThreeDigits() {
        #expect(throws: ServiceCodeError.notThreeDigits) { try ServiceCode("12") }
        #expect(throws: ServiceCodeError.notThreeDigits) { try ServiceCode("1A1") }
        #expect(throws: ServiceCodeError.notThreeDigits) { try ServiceCode("1011") }
    }
}

@Suite struct CardholderNameTests {
    /// ISO/IEC 7813 name format SURNAME/FIRST NAME, 2–26 characters; split by hand.
    @Test func splitsSurnameAndGivenNames() throws {
        let name = try CardholderName("DOE/JOHN Q.MR        ")
        #expect(name.revealedComponents().surname == "DOE")
        #expect(name.revealedComponents().givenNames == "JOHN Q.MR")
        #expect(try CardholderName("CARDHOLDER").revealedComponents().givenNames == nil)
    }

    /// ISO/IEC 7813: 2–26 characters from ASCII 0x20–0x5F, `^` being the separator; offsets hand-counted.

    @Test func enforcesLengthAndCharacterSet() {
        #expect(throws: CardholderNameError.invalidLength(1)) { try CardholderName("X") }
        #expect(throws: CardholderNameError.invalidLength(27)) { try CardholderName(String(repeating: "A", count: 27)) }
        #expect(throws: CardholderNameError.illegalCharacter(offset: 1)) { try CardholderName("Doe/JOHN") }
        #expect(throws: CardholderNameError.illegalCharacter(offset: 3)) { try CardholderName("DOE^JOHN") }
    }

    /// Redaction: no rendering holds the name.

    @Test func renderingsHideTheName() throws {
        let name = try CardholderName("DOE/JOHN")
        #expect(!anyRendering(of: name, contains: ["DOE", "JOHN"]))
    }
}
