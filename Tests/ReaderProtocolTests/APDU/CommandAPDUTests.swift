import TestEnvironment
import Testing
@testable import ReaderProtocol

@Suite struct CommandAPDUTests {
    /// The reader documentation's worked example "ICC APDU carrying SELECT PPSE" (§9), whose
    /// DATA is exactly this command (EMV Book 1 §11.3.2 SELECT layout).
    @Test func selectPPSEMatchesTheReaderDocumentation() throws {
        let documented: [UInt8] = [
            0x00, 0xA4, 0x04, 0x00, 0x0E, 0x32, 0x50, 0x41, 0x59, 0x2E, 0x53, 0x59, 0x53, 0x2E, 0x44, 0x44, 0x46,
            0x30, 0x31, 0x00,
        ]
        let select = try CommandAPDU.select(name: Array("2PAY.SYS.DDF01".utf8))
        #expect(select.encoded().revealed() == documented)
        let parsed = try CommandAPDU(parsing: documented)
        #expect(parsed == select)
        #expect(parsed.isoCase == .case4)
        #expect(parsed.data.count == 14)
        #expect(parsed.expectedLength == 256)
    }

    /// ISO/IEC 7816-4 §5.1, short cases, hand-assembled.
    @Test func parsesShortCases() throws {
        let case1 = try CommandAPDU(parsing: [0x00, 0x70, 0x00, 0x00])
        #expect(case1.isoCase == .case1)
        #expect(case1.expectedLength == nil)

        let case2 = try CommandAPDU(parsing: [0x00, 0xC0, 0x00, 0x00, 0x10])
        #expect(case2.isoCase == .case2)
        #expect(case2.expectedLength == 16)
        #expect(try CommandAPDU(parsing: [0x00, 0xC0, 0x00, 0x00, 0x00]).expectedLength == 256)

        let case3 = try CommandAPDU(parsing: [0x00, 0xA4, 0x00, 0x00, 0x02, 0x3F, 0x00])
        #expect(case3.isoCase == .case3)
        #expect(case3.data.revealed() == [0x3F, 0x00])
        #expect(case3.expectedLength == nil)
    }

    /// ISO/IEC 7816-4 §5.1, extended cases: 00 at offset 4, 2-byte Lc/Le, 0000 = 65,536.
    @Test func parsesExtendedCases() throws {
        let case2 = try CommandAPDU(parsing: [0x00, 0xB0, 0x00, 0x00, 0x00, 0x01, 0x01])
        #expect(case2.isoCase == .case2)
        #expect(case2.expectedLength == 257)
        #expect(try CommandAPDU(parsing: [0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x00]).expectedLength == 65_536)

        let case3 = try CommandAPDU(parsing: [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x02, 0xAA, 0xBB])
        #expect(case3.isoCase == .case3)
        #expect(case3.data.revealed() == [0xAA, 0xBB])

        let case4 = try CommandAPDU(parsing: [0x00, 0x88, 0x00, 0x00, 0x00, 0x00, 0x01, 0xCC, 0x00, 0x00])
        #expect(case4.isoCase == .case4)
        #expect(case4.data.revealed() == [0xCC])
        #expect(case4.expectedLength == 65_536)
    }

    /// ISO/IEC 7816-4 §5.1 length rules; byte counts hand-computed.
    @Test(arguments: [
        ([0x00, 0xA4, 0x04] as [UInt8], APDUError.commandTooShort(byteCount: 3)),
        ([0x00, 0xA4, 0x04, 0x00, 0x00, 0x01], .truncatedExtendedLength(byteCount: 6)),
        ([0x00, 0xA4, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01], .zeroExtendedLc),
        ([0x00, 0xA4, 0x04, 0x00, 0x05, 0x01, 0x02], .lengthMismatch(lc: 5, extended: false, byteCount: 7)),
        ([0x00, 0xA4, 0x04, 0x00, 0x01, 0x01, 0x02, 0x03], .lengthMismatch(lc: 1, extended: false, byteCount: 8)),
        ([0x00, 0xA4, 0x04, 0x00, 0x00, 0x00, 0x02, 0x01], .lengthMismatch(lc: 2, extended: true, byteCount: 8)),
        ([0x00, 0xA4, 0x04, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00], .lengthMismatch(lc: 1, extended: true, byteCount: 9)),
    ])
    func rejectsMalformedCommands(bytes: [UInt8], error: APDUError) {
        #expect(throws: error) { try CommandAPDU(parsing: bytes) }
    }

    /// ISO/IEC 7816-4 limits: Lc ≤ 65,535, Le 1…65,536.
    @Test func rejectsOutOfRangeFields() {
        #expect(throws: APDUError.dataTooLong(byteCount: 65_536)) {
            try CommandAPDU(cla: 0, ins: 0xD6, p1: 0, p2: 0, data: SensitiveBytes([UInt8](repeating: 0, count: 65_536)))
        }
        #expect(throws: APDUError.expectedLengthOutOfRange(0)) {
            try CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 0)
        }
        #expect(throws: APDUError.expectedLengthOutOfRange(65_537)) {
            try CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 65_537)
        }
    }

    /// ISO/IEC 7816-4 §5.1: short form unless Lc > 255 or Le > 256; hand-assembled encodings.
    @Test func choosesExtendedOnlyWhenNeeded() throws {
        let le256 = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0, p2: 0, expectedLength: 256)
        #expect(le256.encoded().revealed() == [0x00, 0xB0, 0x00, 0x00, 0x00])
        #expect(le256.encoded(forcingExtendedLength: true).revealed() == [0x00, 0xB0, 0x00, 0x00, 0x00, 0x01, 0x00])

        let le257 = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0, p2: 0, expectedLength: 257)
        #expect(le257.encoded().revealed() == [0x00, 0xB0, 0x00, 0x00, 0x00, 0x01, 0x01])

        let le65536 = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0, p2: 0, expectedLength: 65_536)
        #expect(le65536.encoded().revealed() == [0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x00])

        let data = [UInt8](repeating: 0x5A, count: 300)
        let case4 = try CommandAPDU(cla: 0x00, ins: 0xD6, p1: 0, p2: 0, data: SensitiveBytes(data), expectedLength: 256)
        #expect(case4.encoded().revealed() == [0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x2C] + data + [0x01, 0x00])

        let case3 = try CommandAPDU(cla: 0x00, ins: 0xD6, p1: 0, p2: 0, data: SensitiveBytes([0xAB]))
        #expect(case3.encoded(forcingExtendedLength: true).revealed() == [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAB])

        let case1 = try CommandAPDU(cla: 0x00, ins: 0x70, p1: 0, p2: 0)
        #expect(case1.encoded(forcingExtendedLength: true).revealed() == [0x00, 0x70, 0x00, 0x00])
    }

    /// EMV Book 3 §6.5.11: READ RECORD P2 = SFI << 3 | 100b; hand-computed (SFI 1 → 0C, SFI 2 → 14).
    @Test func readRecord() throws {
        #expect(try CommandAPDU.readRecord(1, shortFileIdentifier: 1).encoded().revealed() == [0x00, 0xB2, 0x01, 0x0C, 0x00])
        #expect(try CommandAPDU.readRecord(3, shortFileIdentifier: 2).encoded().revealed() == [0x00, 0xB2, 0x03, 0x14, 0x00])
        #expect(throws: APDUError.invalidShortFileIdentifier(31)) { try CommandAPDU.readRecord(1, shortFileIdentifier: 31) }
        #expect(throws: APDUError.invalidShortFileIdentifier(0)) { try CommandAPDU.readRecord(1, shortFileIdentifier: 0) }
        #expect(throws: APDUError.invalidRecordNumber(0)) { try CommandAPDU.readRecord(0, shortFileIdentifier: 1) }
    }

    /// EMV Book 3 §6.5.8: GPO with no PDOL sends the template 83 00.
    @Test func getProcessingOptions() throws {
        #expect(
            try CommandAPDU.getProcessingOptions(pdolData: SensitiveBytes()).encoded().revealed()
                == [0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x00])
        let pdolData: [UInt8] = [0x36, 0x00, 0x40, 0x00]
        #expect(
            try CommandAPDU.getProcessingOptions(pdolData: SensitiveBytes(pdolData)).encoded().revealed()
                == [0x80, 0xA8, 0x00, 0x00, 0x06, 0x83, 0x04] + pdolData + [0x00])
    }

    /// ISO/IEC 7816-4 GET RESPONSE (00 C0 00 00 Le) and EMV Book 3 §6.5.7 GET DATA (80 CA P1P2 = tag).
    @Test func getResponseAndGetData() throws {
        #expect(try CommandAPDU.getResponse(expectedLength: 0x1C).encoded().revealed() == [0x00, 0xC0, 0x00, 0x00, 0x1C])
        #expect(try CommandAPDU.getResponse(expectedLength: 256).encoded().revealed() == [0x00, 0xC0, 0x00, 0x00, 0x00])
        #expect(try CommandAPDU.getData(tag: BERTag(0x9F36)).encoded().revealed() == [0x80, 0xCA, 0x9F, 0x36, 0x00])
        #expect(try CommandAPDU.getData(tag: BERTag(0x5A)).encoded().revealed() == [0x80, 0xCA, 0x00, 0x5A, 0x00])
        let longTag = try BERTag(0xDF_81_01)
        #expect(throws: APDUError.tagTooLongForGetData(longTag)) { try CommandAPDU.getData(tag: longTag) }
    }

    /// Redaction: the data (a PAN in ASCII) must not show; header and lengths hand-written.

    @Test func renderingsShowHeaderAndLengthsOnly() throws {
        let secret = Array("4111111111111111".utf8)
        let command = try CommandAPDU(cla: 0x00, ins: 0xDA, p1: 0x01, p2: 0x02, data: SensitiveBytes(secret), expectedLength: 256)
        #expect(!anyRendering(of: command, contains: ["4111111111111111", hexString(secret), "34 31 31"]))
        #expect(command.description == "00 DA 01 02, Lc 16, Le 256")
    }

    /// Property (ISO/IEC 7816-4 §5.1): every command, in automatic and forced-extended form,
    /// has the length the standard's case formulas give and parses back to itself.
    @Test func roundTripsRandomCommands() throws {
        var generator = SeededGenerator(seed: 0x7816_0004)
        for _ in 0..<500 {
            let dataCount = Bool.random(using: &generator)
                ? 0 : Int.random(in: Bool.random(using: &generator) ? 1...255 : 256...1_000, using: &generator)
            let expectedLength: Int? = Bool.random(using: &generator)
                ? nil : Int.random(in: Bool.random(using: &generator) ? 1...256 : 257...65_536, using: &generator)
            let header = generator.bytes(count: 4)
            let command = try CommandAPDU(
                cla: header[0], ins: header[1], p1: header[2], p2: header[3],
                data: SensitiveBytes(generator.bytes(count: dataCount)), expectedLength: expectedLength)

            let extended = dataCount > 255 || (expectedLength ?? 0) > 256
            let lcBytes = dataCount == 0 ? 0 : (extended ? 3 : 1)
            let leBytes = expectedLength == nil ? 0 : (extended ? (dataCount == 0 ? 3 : 2) : 1)
            let automatic = command.encoded()
            #expect(automatic.count == 4 + lcBytes + dataCount + leBytes)
            #expect(try CommandAPDU(parsing: automatic) == command)
            #expect(try CommandAPDU(parsing: command.encoded(forcingExtendedLength: true)) == command)
        }
    }
}
