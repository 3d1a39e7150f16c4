/// Commands by name (ISO/IEC 7816-4 §11, EMV Book 3 §6.5), and what of their data may be shown.
extension CommandAPDU {
    /// The command by name, with what its header says, e.g. `SELECT by DF name`,
    /// `READ RECORD SFI 1 record 2`, `GET DATA 9F36 (Application Transaction Counter (ATC))`,
    /// `GENERATE AC (ARQC requested)`; `INS 12` for an instruction it does not know.
    public var commandName: String {
        switch ins {
        case 0xA4:
            switch p1 {
            case 0x04: "SELECT by DF name" + (p2 & 0x03 == 0x02 ? ", next occurrence" : "")
            case 0x00: "SELECT by file identifier"
            default: "SELECT (P1 \(p1.hexByte))"
            }
        case 0xB2:
            p2 & 0x07 == 0x04 ? "READ RECORD SFI \(p2 >> 3) record \(p1)" : "READ RECORD record \(p1) (P2 \(p2.hexByte))"
        case 0xA8: "GET PROCESSING OPTIONS"
        case 0xCA, 0xCB: "GET DATA " + getDataTag
        case 0xC0: "GET RESPONSE"
        case 0xAE: "GENERATE AC (\(requestedCryptogram) requested" + (p1 & 0x10 != 0 ? ", CDA)" : ")")
        case 0x88: "INTERNAL AUTHENTICATE"
        case 0x82: "EXTERNAL AUTHENTICATE"
        case 0x84: "GET CHALLENGE"
        case 0x20: "VERIFY" + (p2 == 0x80 ? " (plaintext PIN)" : p2 == 0x88 ? " (enciphered PIN)" : "")
        case 0x24: "PIN CHANGE/UNBLOCK"
        case 0x1E: "APPLICATION BLOCK"
        case 0x18: "APPLICATION UNBLOCK"
        case 0x16: "CARD BLOCK"
        case 0xB0: "READ BINARY"
        case 0xD6: "UPDATE BINARY"
        case 0xDC: "UPDATE RECORD"
        case 0xE2: "APPEND RECORD"
        case 0x70: "MANAGE CHANNEL"
        default: "INS \(ins.hexByte)"
        }
    }

    /// Whether the data field carries PIN data (VERIFY, PIN CHANGE/UNBLOCK): never shown,
    /// not even when revealing card data.
    public var carriesPINData: Bool { ins == 0x20 || ins == 0x24 }

    /// The data field by name where EMV defines it as data objects (GET PROCESSING OPTIONS'
    /// command template) or as a name (SELECT's DF name); nil for other commands, whose data
    /// is shown only when revealing card data.
    public func describedData(revealingCardData reveal: Bool = false) -> [EMVDataElementDescription]? {
        guard !data.isEmpty else { return nil }
        switch ins {
        case 0xA8:
            return EMVDataRenderer(revealingCardData: reveal).describe(encoded: data)
        case 0xA4 where p1 == 0x04:
            let name = BERTLV(tag: EMVTag.dedicatedFileName.tag, value: data)
            return EMVDataRenderer(revealingCardData: reveal).describe([name])
        default:
            return nil
        }
    }

    private var getDataTag: String {
        let tag = p1 == 0 ? (try? BERTag(bytes: [p2])) : (try? BERTag(bytes: [p1, p2]))
        guard let tag else { return "\(p1.hexByte)\(p2.hexByte)" }
        return EMVTag.lookup(tag).map { "\(tag) (\($0.name))" } ?? tag.description
    }

    /// GENERATE AC's P1 bits 8–7 (EMV Book 3 Table 12).
    private var requestedCryptogram: String {
        switch p1 >> 6 {
        case 0: "AAC"
        case 1: "TC"
        case 2: "ARQC"
        default: "RFU"
        }
    }
}

extension ResponseAPDU {
    /// The response data by name (``EMVDataRenderer``), card data masked unless
    /// `revealingCardData`; nil when there is no data or it is not BER-TLV.
    public func describedData(revealingCardData reveal: Bool = false) -> [EMVDataElementDescription]? {
        EMVDataRenderer(revealingCardData: reveal).describe(encoded: data)
    }
}
