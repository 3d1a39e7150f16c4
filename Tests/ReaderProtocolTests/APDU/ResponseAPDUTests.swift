import TestEnvironment
import Testing
@testable import ReaderProtocol

@Suite struct ResponseAPDUTests {
    /// ISO/IEC 7816-4 §5.1: the last two bytes are SW1 SW2; the rest is data. The ATR-free
    /// response bytes are hand-assembled.
    @Test func splitsDataAndStatus() throws {
        let empty = try ResponseAPDU(parsing: [0x90, 0x00])
        #expect(empty.data.isEmpty)
        #expect(empty.statusWord == .success)

        let withData = try ResponseAPDU(parsing: [0x6F, 0x00, 0x61, 0x10])
        #expect(withData.data.revealed() == [0x6F, 0x00])
        #expect(withData.statusWord.category == .moreDataAvailable(16))
        #expect(withData.encoded().revealed() == [0x6F, 0x00, 0x61, 0x10])
    }

    /// ISO/IEC 7816-4 §5.1: a response has at least SW1 SW2.

    @Test func rejectsFewerThanTwoBytes() {
        #expect(throws: APDUError.responseTooShort(byteCount: 1)) { try ResponseAPDU(parsing: [0x90]) }
        #expect(throws: APDUError.responseTooShort(byteCount: 0)) { try ResponseAPDU(parsing: [UInt8]()) }
    }

    /// Redaction: response data must not show; the description is hand-written.

    @Test func renderingsHideTheData() throws {
        // 5A 08 41 11 11 11 11 11 11 11: the PAN 4111111111111111 as EMV tag 5A (EMV Book 3 Annex A, cn).
        let secret: [UInt8] = [0x5A, 0x08, 0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11]
        let response = try ResponseAPDU(parsing: secret + [0x90, 0x00])
        #expect(!anyRendering(of: response, contains: ["4111111111111111", hexString(secret), "41 11 11"]))
        #expect(response.description == "10 data bytes, SW 9000 (success)")
    }

    /// Property: any data and status survive encode → parse.
    @Test func roundTripsRandomResponses() throws {
        var generator = SeededGenerator(seed: 0x7816_0002)
        for _ in 0..<500 {
            let data = generator.bytes(count: Int.random(in: 0...300, using: &generator))
            let status = generator.bytes(count: 2)
            let response = ResponseAPDU(data: SensitiveBytes(data), statusWord: StatusWord(sw1: status[0], sw2: status[1]))
            #expect(response.encoded().revealed() == data + status)
            #expect(try ResponseAPDU(parsing: response.encoded()) == response)
        }
    }
}

@Suite struct StatusWordTests {
    /// ISO/IEC 7816-4 §5.1.3 table 5/6 classes; 61xx/6Cxx with xx = 00 mean 256.
    @Test func classifiesStatusWords() {
        #expect(StatusWord(0x9000).category == .success)
        #expect(StatusWord(0x6110).category == .moreDataAvailable(16))
        #expect(StatusWord(0x6100).category == .moreDataAvailable(256))
        #expect(StatusWord(0x6C1A).category == .wrongLength(exact: 26))
        #expect(StatusWord(0x6C00).category == .wrongLength(exact: 256))
        #expect(StatusWord(0x6283).category == .warning)
        #expect(StatusWord(0x63C2).category == .warning)
        #expect(StatusWord(0x6700).category == .error)
        #expect(StatusWord(0x6A82).category == .error)
        #expect(StatusWord(0x9F10).category == .proprietary)
        #expect(StatusWord(0x6000).category == .proprietary)
    }

    /// Meanings from ISO/IEC 7816-4 §5.1.3 and EMV Book 3 Annex A-style wording.
    @Test func explainsCommonStatusWords() {
        #expect(StatusWord(0x6A82).meaning == "file or application not found")
        #expect(StatusWord(0x6985).meaning == "conditions of use not satisfied")
        #expect(StatusWord(0x6D00).meaning == "instruction code not supported or invalid")
        #expect(StatusWord(0x6110).meaning == "16 more bytes available (use GET RESPONSE)")
        #expect(StatusWord(0x6C00).meaning == "wrong Le; exact length is 256")
        #expect(StatusWord(0x63C2).meaning == "verification failed, 2 retries remaining")
        #expect(StatusWord(0x63C2).remainingRetries == 2)
        #expect(StatusWord(0x6300).remainingRetries == nil)
        #expect(StatusWord(0x6A99).meaning == "wrong parameters P1-P2")
        #expect(StatusWord(0x9F10).meaning == "proprietary or unknown status")
    }

    /// The status words ISO/IEC 7816-4 §5.1.3 and EMV Book 3 name, each with its own meaning.

    @Test func requiredWordsHaveSpecificMeanings() {
        let generic = "proprietary or unknown status"
        for value: UInt16 in [
            0x9000, 0x6700, 0x6982, 0x6983, 0x6984, 0x6985, 0x6A80, 0x6A81, 0x6A82, 0x6A83, 0x6A86, 0x6A88, 0x6B00,
            0x6D00, 0x6E00, 0x6F00, 0x6200, 0x6300, 0x6400, 0x6581, 0x6283,
        ] {
            #expect(StatusWord(value).meaning != generic, "\(StatusWord(value))")
        }
    }

    /// ISO/IEC 7816-4: 6A82 = file or application not found; hex hand-written.

    @Test func describesAsHexAndMeaning() {
        #expect(StatusWord(sw1: 0x6A, sw2: 0x82).description == "6A82 (file or application not found)")
        #expect(StatusWord(sw1: 0x6A, sw2: 0x82).value == 0x6A82)
    }
}
