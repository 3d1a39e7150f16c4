import Testing
import ReaderProtocol

/// Terminal data sent as the card's data object lists asked for it, read by name. Expected
/// values worked out by hand from EMV Book 3 (§5.4 DOLs, Annex A formats, Annex C5 TVR).
@Suite struct EMVSessionContextTests {
    /// An FCI with PDOL `9F02 06 9F1A 02 5F2A 02 9F37 04`, and a record with CDOL1
    /// `9F02 06 95 05 9F37 04` and CDOL2 `8A 02 9F37 04`.
    let fci: ResponseAPDU
    let record: ResponseAPDU

    init() throws {
        fci = try ResponseAPDU(parsing: hex("6F 11 A5 0F 9F 38 0C 9F 02 06 9F 1A 02 5F 2A 02 9F 37 04 90 00"))
        record = try ResponseAPDU(parsing: hex("70 11 8C 08 9F 02 06 95 05 9F 37 04 8D 05 8A 02 9F 37 04 90 00"))
    }

    @Test func getProcessingOptionsDataReadsByThePDOL() throws {
        var session = EMVSessionContext()
        session.observe(fci)
        // 83 0E: amount 12.34, country 0826 (GB), currency 0826 (GBP), unpredictable number.
        let gpo = try CommandAPDU(parsing: hex("80 A8 00 00 10 83 0E 00 00 00 00 12 34 08 26 08 26 01 02 03 04 00"))
        let described = session.describeData(of: gpo)
        let template = try #require(described?.first)
        #expect(template.tag == "83")
        #expect(template.children?.map(\.value) == ["12.34", "826 (GB, United Kingdom)", "826 (GBP)", "01 02 03 04"])
        // Split, the template shows its values by tag, not its bytes whole.
        #expect(template.value == nil && template.hex == nil)
    }

    /// A new SELECT starts a new transaction: its first GENERATE AC reads by CDOL1 again.
    @Test func selectStartsANewTransaction() throws {
        var session = EMVSessionContext()
        session.observe(fci)
        session.observe(record)
        let first = try CommandAPDU(parsing: hex("80 AE 80 00 0F 00 00 00 00 10 00 80 00 00 80 00 0A 0B 0C 0D 00"))
        _ = session.describeData(of: first)
        _ = session.describeData(of: try CommandAPDU(parsing: hex("00 A4 04 00 07 A0 00 00 00 03 10 10 00")))
        let again = session.describeData(of: first)
        #expect(again?.map(\.tag) == ["9F02", "95", "9F37"])
    }

    @Test func generateACDataReadsByCDOL1ThenCDOL2() throws {
        var session = EMVSessionContext()
        session.observe(fci)
        session.observe(record)
        // First GENERATE AC (ARQC): amount 10.00 (no currency: minor units), TVR 80 00 00 80 00, UN.
        let first = try CommandAPDU(parsing: hex("80 AE 80 00 0F 00 00 00 00 10 00 80 00 00 80 00 0A 0B 0C 0D 00"))
        let firstData = session.describeData(of: first)
        let values = try #require(firstData)
        #expect(values.map(\.tag) == ["9F02", "95", "9F37"])
        #expect(values[0].value == "1000 (minor units)")
        #expect(values[1].details == ["Offline data authentication was not performed", "Transaction exceeds floor limit"])
        // Second GENERATE AC (TC): authorisation response code "00", UN.
        let second = try CommandAPDU(parsing: hex("80 AE 40 00 06 30 30 0A 0B 0C 0D 00"))
        let secondData = session.describeData(of: second)
        #expect(secondData?.map(\.value) == ["00", "0A 0B 0C 0D"])
    }

    @Test func dataThatDoesNotFitTheListIsNotSplit() throws {
        var session = EMVSessionContext()
        session.observe(fci)
        let short = try CommandAPDU(parsing: hex("80 A8 00 00 04 83 02 00 00 00"))
        #expect(session.describeData(of: short)?.first?.children == nil)
        // Without any list seen, GENERATE AC's data is not described (only --reveal shows it).
        var fresh = EMVSessionContext()
        let generateAC = try CommandAPDU(parsing: hex("80 AE 80 00 02 00 00 00"))
        #expect(fresh.describeData(of: generateAC) == nil)
    }

    /// A list may ask for a card-data tag; its value is masked by tag like any other.
    @Test func cardDataInRelatedDataStaysMasked() throws {
        var session = EMVSessionContext()
        session.observe(try ResponseAPDU(parsing: hex("6F 07 A5 05 9F 38 02 5A 08 90 00")))
        let gpo = try CommandAPDU(parsing: hex("80 A8 00 00 0A 83 08 41 11 11 11 11 11 11 11 00"))
        let described = session.describeData(of: gpo)
        let pan = try #require(described?.first?.children?.first)
        #expect(pan.value == "411111******1111")
        #expect(pan.hex == nil)
    }
}
