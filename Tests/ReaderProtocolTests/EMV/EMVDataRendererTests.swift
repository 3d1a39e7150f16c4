import FoundationEssentials
import Testing
import ReaderProtocol

/// The renderer against values worked out by hand from EMV Book 3 (Annex A names and formats,
/// Annex C bit tables, §10.2 AFL, §10.5 CVM List), Book 4 (Annex A), ISO 4217 and ISO 3166-1,
/// and the masking policy of PCI DSS 3.4.1 (first six, last four).
@Suite struct EMVDataRendererTests {
    /// A READ RECORD answer holding every tag the policy names, and one the catalogue does not
    /// know (`DF01`). Card number 4761 7390 0101 0010 (Visa's published EMV test card).
    static let cardholderRecord = hex(
        "70 5A"
            + " 5A 08 47 61 73 90 01 01 00 10"
            + " 57 11 47 61 73 90 01 01 00 10 D2 51 22 01 12 34 56 78 9F"
            + " 5F 20 08 44 4F 45 2F 4A 4F 48 4E"  // DOE/JOHN
            + " 9F 1F 04 31 32 33 34"
            + " 9F 20 02 12 34"
            + " 56 10 42 34 37 36 31 37 33 39 30 30 31 30 31 30 30 31"  // truncated track 1: malformed
            + " 5F 34 01 01"
            + " 5F 24 03 25 12 31"
            + " 99 02 12 34"
            + " DF 01 03 AA BB CC")

    static let sensitiveText = ["4761739001010010", "47 61 73 90 01 01 00 10", "DOE/JOHN", "44 4F 45", "31 32 33 34"]

    private func describe(_ bytes: [UInt8], reveal: Bool = false) throws -> [EMVDataElementDescription] {
        try #require(EMVDataRenderer(revealingCardData: reveal).describe(encoded: SensitiveBytes(bytes)))
    }

    private func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    @Test func cardDataIsMaskedByTag() throws {
        let record = try describe(Self.cardholderRecord)
        let fields = try #require(record.first?.children)
        func field(_ tag: String) -> EMVDataElementDescription? { fields.first { $0.tag == tag } }
        #expect(field("5A")?.value == "476173******0010")
        #expect(field("5A")?.redaction == .masked)
        #expect(field("5A")?.hex == nil)
        #expect(field("57")?.value == "476173******0010, expiry 2512, service code 201")
        for tag in ["5F20", "9F1F", "9F20", "99", "DF01"] {
            #expect(field(tag)?.redaction == .hidden, "\(tag)")
            #expect(field(tag)?.value == nil && field(tag)?.hex == nil, "\(tag)")
        }
        // A track 1 that does not parse shows nothing, rather than something unmasked.
        #expect(field("56")?.redaction == .hidden)
        // Shown as a swiped track shows them.
        #expect(field("5F24")?.value == "2025-12-31")
        #expect(field("5F34")?.value == "01")
        let everything = try json(record) + record.lines().joined(separator: "\n")
        for text in Self.sensitiveText {
            #expect(!everything.contains(text), "\(text)")
        }
    }

    @Test func revealShowsCardDataButNeverPINData() throws {
        let fields = try #require(try describe(Self.cardholderRecord, reveal: true).first?.children)
        func field(_ tag: String) -> EMVDataElementDescription? { fields.first { $0.tag == tag } }
        #expect(field("5A")?.value == "4761739001010010")
        #expect(field("57")?.value == "4761739001010010D2512201123456789")
        #expect(field("5F20")?.value == "DOE/JOHN")
        #expect(field("DF01")?.hex == "AA BB CC")
        #expect(field("99")?.redaction == .hidden)
        #expect(field("99")?.hex == nil)
    }

    /// Unknown tags inside an FCI are application selection data (EMV Book 1 §11.3.4), shown;
    /// the same tag in a record is not.
    @Test func unknownTagsShowOnlyInsideAnFCI() throws {
        let fci = try describe(hex("6F 08 84 01 AA DF 01 02 12 34"))
        #expect(fci.first?.children?.last?.hex == "12 34")
        let record = try describe(hex("70 04 DF 01 01 12"))
        #expect(record.first?.children?.first?.redaction == .hidden)
        // An FCI nested in a record is no answer to SELECT; an FCI's BF0C is the issuer's.
        let nested = try describe(hex("70 06 6F 04 DF 01 01 12"))
        #expect(nested.first?.children?.first?.children?.first?.redaction == .hidden)
        let issuer = try describe(hex("6F 07 BF 0C 04 DF 01 01 12"))
        #expect(issuer.first?.children?.first?.children?.first?.redaction == .hidden)
    }

    @Test func nonTLVDataIsNotDescribed() {
        let renderer = EMVDataRenderer()
        #expect(renderer.describe(encoded: SensitiveBytes([0x5A, 0x08, 0x47])) == nil)  // truncated value
        #expect(renderer.describe(encoded: SensitiveBytes()) == nil)
    }

    @Test func terminalDataReadsAsWritten() throws {
        let data = try describe(hex(
            "9F 02 06 00 00 00 00 10 00  5F 2A 02 09 78  9F 1A 02 08 26  9A 03 26 11 24  9F 21 03 14 30 05"
                + "  9C 01 00  9F 35 01 22  5F 2D 04 65 6E 64 65  9F 27 01 80"))
        let values = Dictionary(uniqueKeysWithValues: data.map { ($0.tag, $0.value ?? "") })
        #expect(values["9F02"] == "10.00")  // EUR has two minor-unit digits (ISO 4217)
        #expect(values["5F2A"] == "978 (EUR)")
        #expect(values["9F1A"] == "826 (GB, United Kingdom)")
        #expect(values["9A"] == "2026-11-24")
        #expect(values["9F21"] == "14:30:05")
        #expect(values["9C"] == "00 (goods and services)")
        #expect(values["9F35"] == "22 (merchant, attended, offline with online capability)")
        #expect(values["5F2D"] == "en, de")
        #expect(data.first { $0.tag == "9F27" }?.details == ["ARQC (online authorisation requested)"])
    }

    @Test func amountsFollowTheCurrencysMinorUnit() throws {
        let yen = try describe(hex("9F 02 06 00 00 00 00 10 00  5F 2A 02 03 92"))
        #expect(yen.first?.value == "1000")  // JPY has no minor unit
        let unknown = try describe(hex("9F 02 06 00 00 00 00 10 00"))
        #expect(unknown.first?.value == "1000 (minor units)")
    }

    /// Book 3 Table C5: byte 1 bit 8, byte 4 bit 8.
    @Test func terminalVerificationResultsBitsByMeaning() throws {
        let tvr = try describe(hex("95 05 80 00 00 80 00"))
        #expect(tvr.first?.details == ["Offline data authentication was not performed", "Transaction exceeds floor limit"])
        let unknownBit = try describe(hex("95 05 01 00 00 00 00"))
        #expect(unknownBit.first?.details == ["byte 1 bit 1 (RFU)"])
    }

    /// Book 3 Tables 39 and 40: `42 03` is enciphered PIN online, if the terminal supports it,
    /// trying the next rule when it fails; `1E 03` signature; `1F 03` no CVM.
    @Test func cvmListRulesByName() throws {
        let list = try describe(hex("8E 0E 00 00 00 00 00 00 00 00 42 03 1E 03 1F 03"))
        #expect(list.first?.details?.dropFirst() == [
            "Enciphered PIN verified online, If terminal supports the CVM; next rule if unsuccessful",
            "Signature (paper), If terminal supports the CVM",
            "No CVM required, If terminal supports the CVM",
        ])
        let results = try describe(hex("9F 34 03 1E 03 02"))
        #expect(results.first?.details == ["Method: Signature (paper)", "Condition: If terminal supports the CVM", "Result: Successful"])
    }

    /// §10.2: `08 01 02 01` is SFI 1, records 1 to 2, the first for offline data authentication.
    @Test func applicationFileLocatorEntries() throws {
        let afl = try describe(hex("94 08 08 01 02 01 10 03 03 00"))
        #expect(afl.first?.details == [
            "SFI 1, records 1–2, 1 for offline data authentication", "SFI 2, record 3, 0 for offline data authentication",
        ])
    }

    /// Format 1 answering GET PROCESSING OPTIONS: AIP `1C 00` then a one-entry AFL.
    @Test func responseFormatOneSplitsIntoAIPAndAFL() throws {
        let gpo = try describe(hex("80 06 1C 00 08 01 01 00"))
        #expect(gpo.first?.details == [
            "Application Interchange Profile: 1C 00", "  Cardholder verification is supported",
            "  Terminal risk management is to be performed", "  Issuer authentication is supported",
            "Application File Locator: 08 01 01 00", "  SFI 1, record 1, 0 for offline data authentication",
        ])
    }

    @Test func dataObjectListsNameTheTagsTheyAskFor() throws {
        let pdol = try describe(hex("9F 38 06 9F 02 06 9F 37 04"))
        #expect(pdol.first?.value == "9F02 06, 9F37 04")
        #expect(pdol.first?.details == ["9F02 Amount, Authorised (Numeric), 6 bytes", "9F37 Unpredictable Number, 4 bytes"])
    }

    @Test func linesIndentTemplatesAndDetails() throws {
        let lines = try describe(hex("6F 0B 84 07 A0 00 00 00 04 10 10 87 00")).lines()
        #expect(lines == [
            "6F File Control Information (FCI) Template",
            "   84 Dedicated File (DF) Name: A0000000041010 (Mastercard credit or debit)",
            "   87 Application Priority Indicator: empty",
        ])
    }

    /// Whatever the bytes, rendering ends and keeps card-number tags masked.
    @Test func hostileValuesStayMasked() throws {
        for value in [hex("FF FF FF FF"), hex("4F 11 11 11 11 11 11 1F"), hex("12 34 56 78 9A BC DE F0"), []] {
            let object = BERTLV(tag: EMVTag.applicationPAN.tag, value: value)
            let described = EMVDataRenderer().describe([object])
            #expect(described.first?.hex == nil)
            #expect(described.first?.redaction != nil || value.isEmpty)
        }
    }
}

@Suite struct CommandAPDUNameTests {
    @Test(arguments: [
        ("00 A4 04 00 07 A0 00 00 00 03 10 10 00", "SELECT by DF name"),
        ("00 B2 02 14 00", "READ RECORD SFI 2 record 2"),  // P2 = 2 << 3 | 4
        ("80 A8 00 00 02 83 00 00", "GET PROCESSING OPTIONS"),
        ("80 CA 9F 36 00", "GET DATA 9F36 (Application Transaction Counter (ATC))"),
        ("00 C0 00 00 10", "GET RESPONSE"),
        ("80 AE 80 00 02 00 00 00", "GENERATE AC (ARQC requested)"),
        ("80 AE 50 00 02 00 00 00", "GENERATE AC (TC requested, CDA)"),
        ("00 20 00 80 08 24 12 34 FF FF FF FF FF", "VERIFY (plaintext PIN)"),
        ("00 84 00 00 08", "GET CHALLENGE"),
        ("00 12 00 00", "INS 12"),
    ])
    func commandsByName(bytes: String, name: String) throws {
        #expect(try CommandAPDU(parsing: hex(bytes)).commandName == name)
    }

    @Test func pinDataIsNeverDescribed() throws {
        let verify = try CommandAPDU(parsing: hex("00 20 00 80 08 24 12 34 FF FF FF FF FF"))
        #expect(verify.carriesPINData)
        #expect(verify.describedData(revealingCardData: true) == nil)
        #expect(ReaderCommand.iccAPDU(verify).fields(revealingCardData: true)["apdu.data"] == nil)
    }
}
