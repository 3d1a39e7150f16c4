import Testing
@testable import ReaderProtocol

/// Golden bytes: the reader documentation's worked examples (DocumentedExamples).
@Suite struct FrameEncodingTests {
    typealias Doc = DocumentedExamples

    @Test func encodesEveryDocumentedRequest() throws {
        #expect(try Frame(main: 0xC1, sub: 0x07, data: [0x00, 0x00]).encoded() == Doc.readMagneticStripeDefault)
        #expect(try Frame(main: 0xC0, sub: 0x01).encoded() == Doc.getInfoRequest)
        #expect(try Frame(main: 0xC0, sub: 0x02).encoded() == Doc.cancelRequest)
        #expect(try Frame(main: 0xC1, sub: 0x07, data: [0x00, 0x1E]).encoded() == Doc.readMagneticStripe30s)
        #expect(try Frame(main: 0xC2, sub: 0x01, data: [0x00]).encoded() == Doc.iccPowerOnNoWait)
        #expect(try Frame(main: 0xC2, sub: 0x02, data: Doc.selectPPSEAPDU).encoded() == Doc.selectPPSE)
        #expect(try Frame(main: 0xE0, sub: 0x01).encoded() == Doc.cardInsertedEvent)
    }

    @Test func encodesDocumentedResponses() throws {
        #expect(try Frame(main: 0xC2, sub: 0x01, data: [0x00] + Doc.atr).encoded() == Doc.iccPowerOnResponse)
        let swipeData = [0x00, 0x33] + Array(Doc.swipeTrack1.utf8) + [0x27] + Array(Doc.swipeTrack2.utf8) + [0x00]
        #expect(try Frame(main: 0xC1, sub: 0x07, data: swipeData).encoded() == Doc.swipeResponse)
    }

    /// The documentation: "LEN + 7 bytes"; DATA up to 1024.
    @Test func frameLengthIsDataPlusSeven() throws {
        let data = [UInt8](repeating: 0xA5, count: 1024)
        #expect(try Frame(main: 0xC2, sub: 0x02, data: data).encoded().count == 1031)
    }

    @Test func refusesDataLongerThanTheProfileAllows() {
        let frame = Frame(main: 0xC2, sub: 0x02, data: [UInt8](repeating: 0, count: 1025))
        #expect(throws: FrameEncodingError.dataTooLong(length: 1025, maximum: 1024)) { try frame.encoded() }
    }

    /// Another vendor's profile: CRC-16/KERMIT, low byte first. KERMIT over C0 01 00 00 is
    /// 0x6105, computed independently with a bitwise (table-free) reflected CRC in Python.
    @Test func encodesWithAnotherProfilesChecksumAndByteOrder() throws {
        let profile = FrameProfile(
            startByte: 0x02, maximumDataLength: 512, checksum: .kermit, checksumByteOrder: .littleEndian)
        let bytes = try Frame(main: 0xC0, sub: 0x01).encoded(profile: profile)
        #expect(bytes == [0x02, 0xC0, 0x01, 0x00, 0x00, 0x05, 0x61])
    }

    @Test func descriptionShowsNoData() {
        let frame = Frame(main: 0xC1, sub: 0x07, data: Array(Doc.swipeTrack2.utf8))
        for text in [frame.description, "\(frame)", String(reflecting: frame), dumped(frame)] {
            #expect(!text.contains("4111"))
            #expect(!text.contains("52, 49")) // the bytes of "41" as a raw array would print
        }
    }
}

func dumped(_ value: some Any) -> String {
    var text = ""
    dump(value, to: &text)
    return text
}
