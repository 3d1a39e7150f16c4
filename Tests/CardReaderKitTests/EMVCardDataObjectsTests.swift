import ReaderProtocol
import Testing
@testable import CardReaderCore

/// How an EMV read turns data objects into the card's number, expiry and name. Expected
/// values are read off the hex by hand, per EMV Book 3 Annex A: 5A is compressed numeric
/// (cn, padded with F), 57 is the PAN, D, YYMM, service code and discretionary data (F
/// padding), 5F24 is YYMMDD in BCD, 5F20 is ans padded with spaces.
@Suite struct EMVCardDataObjectsTests {
    func card(_ objects: [(UInt32, String)]) throws -> EMVCard {
        let record = BERTLV(
            tag: try BERTag(0x70), children: try objects.map { tag, value in BERTLV(tag: try BERTag(tag), value: hex(value)) })
        return try EMVCard(
            applicationIdentifier: hex("A0000000031010"), fileControlInformation: [], processingOptions: [],
            records: [record])
    }

    @Test func fifteenDigitPANPaddedWithF() throws {
        let card = try card([(0x5A, "3742 4545 5400 126F"), (0x5F24, "271231")])
        #expect(card.primaryAccountNumber.revealed() == "374245455400126")
        #expect(card.expiry == (try ExpiryDate(year: 2027, month: 12)))
    }

    @Test func withoutFiveAThePANAndExpiryComeFromTrack2Equivalent() throws {
        let card = try card([(0x57, "5413 3300 8901 0608 D2812 201 123456789 F")])
        #expect(card.primaryAccountNumber.revealed() == "5413330089010608")
        #expect(card.expiry == (try ExpiryDate(year: 2028, month: 12)))
    }

    /// 5F24 is n 6 (YYMMDD): another length or a non-digit is no expiry, and 57's is not used
    /// in its place (5F24 is there but wrong).
    @Test(arguments: ["2712", "27123101", "27AB31"])
    func aMalformedExpiryIsNone(value: String) throws {
        let card = try card([(0x5A, "4111111111111111"), (0x5F24, value), (0x57, "4111111111111111D25122010F")])
        #expect(card.expiry == nil)
    }

    /// A tag written as a number finds the same object as the `BERTag`; one that is not a
    /// well-formed tag (0x1F: its next byte is missing; 0x5A01: a byte after a whole tag)
    /// finds nothing rather than trapping.
    @Test func dataObjectsAreFoundByTagNumbers() throws {
        let card = try card([(0x5A, "4111111111111111"), (0x5F24, "271231")])
        #expect(card.dataObject(0x5A) == card.dataObject(try BERTag(0x5A)))
        #expect(card.dataObject(0x5F24)?.value.revealed() == hex("271231"))
        #expect(card.dataObject(0x9F26) == nil)
        #expect(card.dataObject(0x1F) == nil && card.dataObject(0x5A01) == nil)
        #expect(card.records.firstDescendant(withTag: 0x5F24)?.value.revealed() == hex("271231"))
        #expect(card.records.first(withTag: 0x70)?.children.count == 2)
        #expect(card.records.first?.firstDescendant(withTag: 0x5A) != nil)
    }

    @Test func nameLosesItsPaddingSpaces() throws {
        let card = try card([(0x5A, "4111111111111111"), (0x5F20, "444F452F4A4F484E2020")])  // "DOE/JOHN  "
        #expect(card.cardholderName?.revealed() == "DOE/JOHN")
    }

    @Test(arguments: [
        [(UInt32(0x5A), "4111 1111 1111 A111")],  // a letter nibble inside the number
        [(0x5A, "4111 1111 1111 111F 41")],  // digits after the padding
        [(0x57, "4111 1111 1111 1111 B251")],  // 57 with a B where its D separator belongs
        [(0x57, "4111 1111 1111 1111")],  // 57 without its D separator at all
        [(0x57, "4111 1111 1111 1111 D251 2A01 FF")],  // a letter among the digits after D
        [(0x5F24, "251231")],  // no number at all
    ])
    func malformedNumbersAreInvalidCardData(objects: [(UInt32, String)]) throws {
        #expect(throws: CardReaderError.invalidCardData("no valid card number in 5A or 57")) { try card(objects) }
    }

    /// A malformed 5A is not replaced by 57's number: the card contradicts itself.
    @Test func aMalformedFiveAIsNotReplacedByTrack2() throws {
        #expect(throws: CardReaderError.invalidCardData("no valid card number in 5A or 57")) {
            try card([(0x5A, "4111 1111 1111 A111"), (0x57, "4111111111111111D25122010F")])
        }
    }
}
