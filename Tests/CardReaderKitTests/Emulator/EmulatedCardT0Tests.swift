import CardReaderKit
import CardReaderKitTesting
import Testing

/// The chip card over T=0 as the host sees it through ICC APDU: `61xx` / GET RESPONSE,
/// `6Cxx` / re-send, and a full EMV read (PPSE, SELECT, GPO, READ RECORD). Expected values
/// are the built-in profiles' data, restated here from the card files.
@Suite(.timeLimit(.minutes(1))) struct EmulatedCardT0Tests {
    private static let ppse = Array("2PAY.SYS.DDF01".utf8)

    private static func poweredHost(_ card: EmulatedCard, mtu: Int = 23) async throws -> EmulatorHost {
        var host = try await EmulatorHost(card: card, scenario: ["card-inserted"], mtu: mtu)
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .success)
        return host
    }

    /// A case-4 command, then GET RESPONSE with the announced length: the whole answer.
    private static func fetch(_ command: CommandAPDU, _ host: inout EmulatorHost) async throws -> SensitiveBytes {
        let first = try await host.transmit(command)
        #expect(first.data.isEmpty)
        guard case .moreDataAvailable(let length) = first.statusWord.category else {
            Issue.record("expected 61xx, got \(first.statusWord)")
            return SensitiveBytes()
        }
        let second = try await host.transmit(try .getResponse(expectedLength: length))
        #expect(second.statusWord == .success)
        #expect(second.data.count == length)
        return second.data
    }

    @Test(arguments: [23, 247]) func visaCardReadsThroughPPSESelectGPOAndRecords(mtu: Int) async throws {
        var host = try await Self.poweredHost(.visaTest, mtu: mtu)

        // The documentation's SELECT PPSE frame (§9), written as bytes.
        try await host.write(hex("02 C2 02 00 14 00 A4 04 00 0E 32 50 41 59 2E 53 59 53 2E 44 44 46 30 31 00 E5 D3"))
        let announced = try await host.nextResponse()
        guard case .apdu(let ppseStatus) = announced.body else { return #expect(Bool(false)) }
        // FCI 6F [84 0E name, A5 [BF0C [61 [4F 07 aid, 50 0B label, 87 01 01]]]]: 50 bytes
        // (lengths computed independently with a Python TLV encoder).
        #expect(ppseStatus.statusWord == StatusWord(0x6132))
        let ppseFCI = try await host.transmit(try .getResponse(expectedLength: 0x32))
        #expect(ppseFCI.statusWord == .success)
        #expect(ppseFCI.data.revealed() == hex("""
            6F 30 84 0E 32 50 41 59 2E 53 59 53 2E 44 44 46 30 31 A5 1E BF 0C 1B 61 19
            4F 07 A0 00 00 00 03 10 10 50 0B 56 49 53 41 20 43 52 45 44 49 54 87 01 01
            """))

        let fci = try await Self.fetch(try .select(name: hex("A0000000031010")), &host)
        // 6F [84 07 aid, A5 [50 0B "VISA CREDIT", 87 01 01, 9F38 0C PDOL]].
        #expect(fci.revealed() == hex("""
            6F 2A 84 07 A0 00 00 00 03 10 10 A5 1F 50 0B 56 49 53 41 20 43 52 45 44 49 54
            87 01 01 9F 38 0C 9F 02 06 9F 1A 02 5F 2A 02 9F 37 04
            """))

        // PDOL related data: 6 + 2 + 2 + 4 = 14 bytes.
        let gpo = try await Self.fetch(try .getProcessingOptions(pdolData: SensitiveBytes([UInt8](repeating: 0, count: 14))), &host)
        // 77 [82 02 1C00, 94 08 (SFI 1 records 1–2, SFI 2 record 1)].
        #expect(gpo.revealed() == hex("77 0E 82 02 1C 00 94 08 08 01 02 00 10 01 01 00"))

        // READ RECORD SFI 1 record 2 with Le 256: wrong length, 6Cxx tells the exact one.
        let probe = try await host.transmit(try .readRecord(2, shortFileIdentifier: 1))
        #expect(probe.data.isEmpty)
        guard case .wrongLength(let exact) = probe.statusWord.category else { return #expect(Bool(false), "\(probe)") }
        let record = try await host.transmit(
            try CommandAPDU(cla: 0x00, ins: 0xB2, p1: 0x02, p2: 0x0C, expectedLength: exact))
        #expect(record.statusWord == .success)
        let objects = try BERTLV.parse(record.data)
        #expect(objects.count == 1)
        #expect(objects.first?.tag == EMVTag.readRecordResponseTemplate.tag)
        #expect(objects.first?.firstDescendant(withTag: EMVTag.applicationPAN.tag)?.value.revealed() == hex("4111111111111111"))
        #expect(objects.first?.firstDescendant(withTag: EMVTag.applicationExpirationDate.tag)?.value.revealed() == hex("251231"))
        #expect(objects.first?.firstDescendant(withTag: EMVTag.serviceCode.tag)?.value.revealed() == hex("0201"))
    }

    @Test func mastercardCardSelectsWithoutPDOL() async throws {
        var host = try await Self.poweredHost(.mastercardTest, mtu: 247)
        let directory = try await Self.fetch(try .select(name: Self.ppse), &host)
        let entry = try BERTLV.parse(directory).firstDescendant(withTag: EMVTag.applicationTemplate.tag)
        #expect(entry?.firstDescendant(withTag: EMVTag.applicationIdentifier.tag)?.value.revealed() == hex("A0000000041010"))
        #expect(entry?.firstDescendant(withTag: EMVTag.applicationLabel.tag)?.value.revealed() == Array("MASTERCARD".utf8))
        let fci = try await Self.fetch(try .select(name: hex("A0000000041010")), &host)
        #expect(try BERTLV.parse(fci).firstDescendant(withTag: EMVTag.pdol.tag) == nil)
        // No PDOL: the command template is empty (83 00).
        let gpo = try await Self.fetch(try .getProcessingOptions(pdolData: SensitiveBytes()), &host)
        #expect(gpo.revealed() == hex("77 0E 82 02 18 00 94 08 08 01 01 00 10 01 02 00"))
        // SFI 1 record 1: 70 [57 13 track-2 equivalent, 5F20 09 "TEST/CARD"] = 2 + 21 + 12 = 35 bytes.
        let record = try await host.transmit(try CommandAPDU(cla: 0x00, ins: 0xB2, p1: 0x01, p2: 0x0C, expectedLength: 35))
        #expect(record.statusWord == .success)
        #expect(try BERTLV.parse(record.data).firstDescendant(withTag: EMVTag.track2EquivalentData.tag)?.value.revealed()
            == hex("5555555555554444 D2712201 0000000000000F"))
    }

    @Test func getResponseWithASmallerLeReturnsThatManyAnd61ForTheRest() async throws {
        var host = try await Self.poweredHost(.visaTest)
        #expect(try await host.transmit(try .select(name: Self.ppse)).statusWord == StatusWord(0x6132))
        let head = try await host.transmit(try .getResponse(expectedLength: 0x20))
        #expect(head.data.count == 0x20)
        #expect(head.statusWord == StatusWord(0x6112))  // 50 − 32 = 18 left
        let tail = try await host.transmit(try .getResponse(expectedLength: 0x12))
        #expect(tail.statusWord == .success)
        #expect((head.data.revealed() + tail.data.revealed()).prefix(4) == [0x6F, 0x30, 0x84, 0x0E])
        // Nothing left: GET RESPONSE now answers 6985.
        #expect(try await host.transmit(try .getResponse(expectedLength: 1)).statusWord == StatusWord(0x6985))
    }

    @Test func getResponseAskingForMoreThanWaitsAnswers6CWithTheExactLength() async throws {
        var host = try await Self.poweredHost(.visaTest)
        _ = try await host.transmit(try .select(name: Self.ppse))
        #expect(try await host.transmit(try .getResponse(expectedLength: 256)).statusWord == StatusWord(0x6C32))
        // One byte more than waits is already too many.
        #expect(try await host.transmit(try .getResponse(expectedLength: 0x33)).statusWord == StatusWord(0x6C32))
        // The data still waits.
        #expect(try await host.transmit(try .getResponse(expectedLength: 0x32)).statusWord == .success)
    }

    @Test func anyOtherCommandDiscardsWhatWaitsForGetResponse() async throws {
        var host = try await Self.poweredHost(.visaTest)
        _ = try await host.transmit(try .select(name: Self.ppse))
        _ = try await host.transmit(try .readRecord(1, shortFileIdentifier: 1))
        #expect(try await host.transmit(try .getResponse(expectedLength: 0x32)).statusWord == StatusWord(0x6985))
    }

    @Test func cardErrorsFollowISO7816AndEMV() async throws {
        var host = try await Self.poweredHost(.visaTest)
        // READ RECORD before any application is selected: no such file.
        #expect(try await host.transmit(try .readRecord(1, shortFileIdentifier: 1)).statusWord == StatusWord(0x6A82))
        // GPO with nothing selected: conditions of use not satisfied.
        #expect(try await host.transmit(try .getProcessingOptions(pdolData: SensitiveBytes())).statusWord == StatusWord(0x6985))
        // Unknown AID.
        #expect(try await host.transmit(try .select(name: hex("A0000000999999"))).statusWord == StatusWord(0x6A82))
        _ = try await Self.fetch(try .select(name: hex("A0000000031010")), &host)
        // PDOL wants 14 bytes; 13 is the wrong length.
        let short = SensitiveBytes([UInt8](repeating: 0, count: 13))
        #expect(try await host.transmit(try .getProcessingOptions(pdolData: short)).statusWord == StatusWord(0x6700))
        // Unknown SFI, then an unknown record of a known file.
        #expect(try await host.transmit(try .readRecord(1, shortFileIdentifier: 5)).statusWord == StatusWord(0x6A82))
        #expect(try await host.transmit(try .readRecord(9, shortFileIdentifier: 1)).statusWord == StatusWord(0x6A83))
        // GENERATE AC is not emulated: unknown instruction. A proprietary class: class not supported.
        let generateAC = try CommandAPDU(cla: 0x80, ins: 0xAE, p1: 0x80, p2: 0x00, data: SensitiveBytes([0]), expectedLength: 256)
        #expect(try await host.transmit(generateAC).statusWord == StatusWord(0x6D00))
        #expect(try await host.transmit(try CommandAPDU(cla: 0x84, ins: 0xB2, p1: 1, p2: 0x0C, expectedLength: 256)).statusWord
            == StatusWord(0x6E00))
        #expect(try await host.transmit(try CommandAPDU(cla: 0x80, ins: 0xA4, p1: 4, p2: 0, data: SensitiveBytes(Self.ppse)))
            .statusWord == StatusWord(0x6E00))
    }
}
