import Testing
import ReaderProtocol

/// The recorded-packet text format as the README documents it.
@Suite struct PacketRecordingTextTests {
    @Test func readsDirectionsTimestampsCommentsAndBothHexStyles() throws {
        let text = """
            # a comment line

            > 02 C0 01 00 00 00 54
            0.125 < 02c0010000   # trailing comment
              12 <0054
            """
        let packets = try PacketRecordingText.parse(text)
        #expect(packets == [
            RecordedPacket(direction: .hostToReader, bytes: [0x02, 0xC0, 0x01, 0x00, 0x00, 0x00, 0x54], location: 3),
            RecordedPacket(direction: .readerToHost, bytes: [0x02, 0xC0, 0x01, 0x00, 0x00], timestamp: 0.125, location: 4),
            RecordedPacket(direction: .readerToHost, bytes: [0x00, 0x54], timestamp: 12, location: 5),
        ])
    }

    @Test(arguments: [
        ("02 C0 01", RecordingFormatError.Problem.missingDirection),
        ("> 02 C0 0", .notHex(.oddDigitCount)),
        ("> 02 G0", .notHex(.invalidDigit("G"))),
        ("soon > 02", .invalidTimestamp),
        (">", .noBytes),
        // Full-width digits are digits, but not ASCII hex.
        ("> ０２ Ｃ０", .notHex(.invalidDigit("０"))),
        // 400 digits: Double reads it as infinity, which is no number of seconds.
        (String(repeating: "9", count: 400) + " > 02", .invalidTimestamp),
    ])
    func rejectsMalformedLinesWithTheirLineNumber(line: String, problem: RecordingFormatError.Problem) {
        #expect(throws: RecordingFormatError(line: 2, problem: problem)) {
            try PacketRecordingText.parse("> 02\n" + line)
        }
    }

    /// Identifiers spell the code's name in lower case with dashes, as Docs/errors.md shows
    /// (`truncatedValue` is `truncated-value`).
    @Test func aMalformedLineHasAStableCode() {
        let error = #expect(throws: RecordingFormatError.self) { try PacketRecordingText.parse("> 02 G0") }
        #expect(error?.code == .notHex)
        #expect(error?.code.rawValue == "not-hex")
        #expect(error?.line == 1)
    }

    @Test func renderedRecordingsParseBack() throws {
        let packets = [
            RecordedPacket(direction: .hostToReader, bytes: [0x02, 0xC0], timestamp: 0.5, location: 1),
            RecordedPacket(direction: .readerToHost, bytes: [0xFF], location: 2),
        ]
        #expect(try PacketRecordingText.parse(PacketRecordingText.render(packets)) == packets)
    }

    /// Swift prints these with an exponent (`1e-05`, `1e+16`, `1.5e-07`), which the format
    /// does not read: they are rendered in plain decimal and read back as the same values.
    @Test(arguments: [0.00001, 1e16, 1.5e-7, 2.5e20, 123.25, 0])
    func everyTimestampIsRenderedSoThatItParsesBack(seconds: Double) throws {
        let packet = RecordedPacket(direction: .readerToHost, bytes: [0x02], timestamp: seconds, location: 1)
        let text = PacketRecordingText.render([packet])
        #expect(!text.contains("e"), "\(text)")
        #expect(try PacketRecordingText.parse(text) == [packet])
    }

    @Test(arguments: [-1.0, .infinity, .nan])
    func timestampsTheFormatCannotHoldAreLeftOut(seconds: Double) throws {
        let packet = RecordedPacket(direction: .readerToHost, bytes: [0x02], timestamp: seconds, location: 1)
        #expect(PacketRecordingText.render([packet]) == "< 02\n")
    }
}
