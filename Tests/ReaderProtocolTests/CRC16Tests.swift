import Testing
@testable import ReaderProtocol

/// Check values are the catalogue's (reveng CRC catalogue) for ASCII "123456789".
@Suite struct CRC16Tests {
    let check = Array("123456789".utf8)

    @Test func ccittFalseCheckValue() {
        #expect(CRC16(.ccittFalse).checksum(check) == 0x29B1)
    }

    @Test func xmodemCheckValue() {
        #expect(CRC16(.xmodem).checksum(check) == 0x31C3)
    }

    @Test func kermitCheckValue() {
        #expect(CRC16(.kermit).checksum(check) == 0x2189)
    }

    @Test func incrementalUpdateMatchesOneShot() {
        let crc = CRC16(.ccittFalse)
        var register = crc.variant.initialValue
        for chunk in [check[0..<2], check[2..<7], check[7...]] {
            register = crc.update(register, with: chunk)
        }
        #expect(crc.finalize(register) == 0x29B1)
    }

    /// The reader documentation's worked example `02 C0 01 00 00 | 00 54`: CRC over MAIN..DATA.
    @Test func documentedGetInfoFrameCRC() {
        #expect(CRC16(.ccittFalse).checksum([0xC0, 0x01, 0x00, 0x00]) == 0x0054)
    }
}
