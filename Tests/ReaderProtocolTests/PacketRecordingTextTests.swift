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
    ])
    func rejectsMalformedLinesWithTheirLineNumber(line: String, problem: RecordingFormatError.Problem) {
        #expect(throws: RecordingFormatError(line: 2, problem: problem)) {
            try PacketRecordingText.parse("> 02\n" + line)
        }
    }

    @Test func renderedRecordingsParseBack() throws {
        let packets = [
            RecordedPacket(direction: .hostToReader, bytes: [0x02, 0xC0], timestamp: 0.5, location: 1),
            RecordedPacket(direction: .readerToHost, bytes: [0xFF], location: 2),
        ]
        #expect(try PacketRecordingText.parse(PacketRecordingText.render(packets)) == packets)
    }
}
