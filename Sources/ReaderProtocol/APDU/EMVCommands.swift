/// The commands an EMV card read sends (EMV Book 1 §11, Book 3 §6.5).
extension CommandAPDU {
    /// SELECT by DF name (`00 A4 04 00`, Le 256): selects the application or directory named
    /// `name`, e.g. `2PAY.SYS.DDF01` (the contactless PPSE) or an AID.
    public static func select(name: some Collection<UInt8>) throws(APDUError) -> CommandAPDU {
        try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: SensitiveBytes(name), expectedLength: 256)
    }

    /// GET PROCESSING OPTIONS (`80 A8 00 00`, Le 256) with the command template `83`
    /// wrapping the PDOL-related data (empty when the card gave no PDOL).
    public static func getProcessingOptions(pdolData: SensitiveBytes) throws(APDUError) -> CommandAPDU {
        let template = BERTLV(tag: EMVTag.commandTemplate.tag, value: pdolData).encoded()
        return try CommandAPDU(cla: 0x80, ins: 0xA8, p1: 0x00, p2: 0x00, data: template, expectedLength: 256)
    }

    /// READ RECORD (`00 B2`, P1 = record, P2 = SFI << 3 | 4, Le 256): reads one record
    /// (1…255) of the file with short file identifier `shortFileIdentifier` (1…30).
    public static func readRecord(_ record: Int, shortFileIdentifier: Int) throws(APDUError) -> CommandAPDU {
        guard (1...255).contains(record) else { throw .invalidRecordNumber(record) }
        guard (1...30).contains(shortFileIdentifier) else { throw .invalidShortFileIdentifier(shortFileIdentifier) }
        return try CommandAPDU(
            cla: 0x00, ins: 0xB2, p1: UInt8(record), p2: UInt8(shortFileIdentifier << 3 | 4), expectedLength: 256)
    }

    /// GET RESPONSE (`00 C0 00 00`, Le = `expectedLength`): fetches what a `61xx` status announced.
    public static func getResponse(expectedLength: Int) throws(APDUError) -> CommandAPDU {
        try CommandAPDU(cla: 0x00, ins: 0xC0, p1: 0x00, p2: 0x00, expectedLength: expectedLength)
    }

    /// GET DATA (`80 CA`, P1 P2 = the tag, Le 256), e.g. for `9F36` (ATC) or `9F17` (PIN try counter).
    /// A one-byte tag goes in P2 with P1 `00`.
    public static func getData(tag: BERTag) throws(APDUError) -> CommandAPDU {
        let bytes = tag.bytes
        guard bytes.count <= 2 else { throw .tagTooLongForGetData(tag) }
        let p1 = bytes.count == 2 ? bytes[0] : 0
        return try CommandAPDU(cla: 0x80, ins: 0xCA, p1: p1, p2: bytes[bytes.count - 1], expectedLength: 256)
    }
}
