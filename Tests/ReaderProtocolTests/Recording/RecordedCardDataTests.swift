import Testing
import ReaderProtocol

/// Which recordings hold card data, and whose.
@Suite struct RecordedCardDataTests {
    private func packets(_ name: String) throws -> [RecordedPacket] {
        let parts = name.split(separator: "/").map(String.init)
        return try PacketRecordingText.parse(try FixtureFiles.text(parts[0], parts[1]))
    }

    /// The documentation's swipe: 4111 1111 1111 1111 on both tracks, a published test card.
    @Test func aSwipeOfTheTestCardHoldsOnlyATestCard() throws {
        let data = RecordedCardData(packets: try packets("packets/swipe-mtu23.txt"))
        #expect(data.holdsCardData)
        #expect(data.cardNumbers.map(\.masked) == ["411111******1111"])
        #expect(data.holdsOnlyTestCards)
    }

    @Test func commandsAndStatusesHoldNoCardData() throws {
        let data = RecordedCardData(packets: try packets("packets/get-info-mtu23.txt"))
        #expect(!data.holdsCardData)
        #expect(data.holdsOnlyTestCards)
    }

    /// SELECT PPSE's answer is an FCI: application selection data, not card data.
    @Test func anFCIHoldsNoCardData() throws {
        #expect(!RecordedCardData(packets: try packets("packets/icc-select-ppse-mtu23.txt")).holdsCardData)
    }

    /// A READ RECORD answer with a PAN (5A) outside the test lists: 4545 4512 3456 7898.
    @Test func aRecordWithAnotherCardIsNotATestCard() throws {
        let record: [UInt8] = [0x70, 0x0A, 0x5A, 0x08, 0x45, 0x45, 0x45, 0x12, 0x34, 0x56, 0x78, 0x98, 0x90, 0x00]
        let data = RecordedCardData(packets: try respond(record))
        #expect(data.cardNumbers.map(\.masked) == ["454545******7898"])
        #expect(!data.holdsOnlyTestCards)
    }

    /// A cardholder name without any card number cannot be told to be a test card's.
    @Test func cardDataWithoutANumberIsNotATestCard() throws {
        let record: [UInt8] = [0x70, 0x06, 0x5F, 0x20, 0x03, 0x41, 0x2F, 0x42, 0x90, 0x00]
        let data = RecordedCardData(packets: try respond(record))
        #expect(data.holdsCardData && data.cardNumbers.isEmpty)
        #expect(!data.holdsOnlyTestCards)
    }

    /// A damaged region may hold anything the reader sent: a READ RECORD answer cut short
    /// by a drop is card data whose card cannot be told.
    @Test func damageCountsAsCardDataOfAnUnknownCard() throws {
        let data = RecordedCardData(packets: try packets("packets/damaged-truncated-mtu23.txt"))
        #expect(data.holdsCardData)
        #expect(!data.holdsOnlyTestCards)
    }

    /// VERIFY carries a PIN block (EMV Book 3 §6.5.12): never kept, whatever the card.
    @Test func aPINBlockIsNeverKept() throws {
        let verify = try CommandAPDU(parsing: [0x00, 0x20, 0x00, 0x80, 0x08, 0x24, 0x12, 0x34, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let frame = ReaderCommand.iccAPDU(verify).frame
        let data = RecordedCardData(packets: [RecordedPacket(direction: .hostToReader, bytes: try frame.encoded(), location: 1)])
        #expect(data.pinData)
        #expect(!data.holdsOnlyTestCards)
    }

    /// Only an outermost FCI is selection data: one nested in a record is not, and neither is
    /// an FCI's issuer discretionary data (BF0C).
    @Test func unknownTagsInANestedFCIAreCardData() throws {
        let nested: [UInt8] = [0x70, 0x07, 0x6F, 0x05, 0xDF, 0x01, 0x02, 0x12, 0x34, 0x90, 0x00]
        #expect(RecordedCardData(packets: try respond(nested)).holdsCardData)
        let discretionary: [UInt8] = [0x6F, 0x0A, 0xA5, 0x08, 0xBF, 0x0C, 0x05, 0xDF, 0x01, 0x02, 0x12, 0x34, 0x90, 0x00]
        #expect(RecordedCardData(packets: try respond(discretionary)).holdsCardData)
        let selection: [UInt8] = [0x6F, 0x07, 0xA5, 0x05, 0xDF, 0x01, 0x02, 0x12, 0x34, 0x90, 0x00]
        #expect(!RecordedCardData(packets: try respond(selection)).holdsCardData)
    }

    /// Every published test number is a well-formed card number that passes the Luhn check
    /// (ISO/IEC 7812-1 Annex B), as the lists they come from say.
    @Test func testCardNumbersAreWellFormed() throws {
        for number in TestCardNumbers.numbers {
            let pan = try PrimaryAccountNumber(number)
            #expect(pan.passesLuhn, "\(pan)")
            #expect(TestCardNumbers.contains(pan))
        }
    }

    /// One ICC APDU response frame carrying `response` (data and SW), built with the frame encoder.
    private func respond(_ response: [UInt8]) throws -> [RecordedPacket] {
        let frame = ReaderResponse(code: .iccAPDU, status: .success, body: .apdu(try ResponseAPDU(parsing: response))).frame
        return [RecordedPacket(direction: .readerToHost, bytes: try frame.encoded(), location: 1)]
    }
}
