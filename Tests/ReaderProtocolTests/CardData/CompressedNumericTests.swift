import Testing
import ReaderProtocol

/// BCD card numbers as EMV Book 3 Annex A stores them: `5A` is `cn` (padded with `F`), `57`
/// puts a `D` between the PAN and the expiry.
@Suite struct CompressedNumericTests {
    private func digits(_ bytes: [UInt8], _ terminator: UInt8) -> String? {
        guard let terminator = CompressedNumeric.Terminator(rawValue: terminator) else { return nil }
        return CompressedNumeric.digits(of: SensitiveBytes(bytes), endingWith: terminator)
            .map { String(decoding: $0.revealed(), as: UTF8.self) }
    }

    @Test func panWithAndWithoutPadding() {
        #expect(digits([0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10], 0xF) == "4761739001010010")
        #expect(digits([0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F], 0xF) == "411111111111111")
        #expect(digits([0x41, 0x1F, 0x11], 0xF) == nil)  // a digit after the padding
        #expect(digits([0x41, 0xA1], 0xF) == nil)  // not a digit
    }

    @Test func trackTwoEquivalentDataUpToItsSeparator() {
        #expect(digits([0x41, 0x11, 0xD2, 0x51, 0x2F], 0xD) == "4111")
        #expect(digits([0x41, 0x11, 0x11], 0xD) == nil)  // no separator
        #expect(digits([0x41, 0xD2, 0xDF], 0xD) == nil)  // a second separator
    }
}
