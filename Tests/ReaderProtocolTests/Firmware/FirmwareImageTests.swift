import ReaderProtocol
import Testing

/// `.vfw` images (reader documentation §7.3). The fixture was written by an independent
/// encoder (Python's `struct` and `zlib.crc32`), not by ``FirmwareImage/encode(model:version:payload:)``.
@Suite struct FirmwareImageTests {
    @Test func crc32MatchesTheCatalogueAndZlib() {
        // Catalogue check value of CRC-32/ISO-HDLC over "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        // zlib.crc32 of the fixture's bytes before its CRC: 0x6f01bc51 (Python).
        #expect(CRC32.checksum(fixtureBody) == 0x6F01_BC51)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    var fixture: [UInt8] { (try? FixtureFiles.bytes("firmware", "vpos3356-2.5.0.vfw")) ?? [] }
    var fixtureBody: [UInt8] { Array(fixture.dropLast(4)) }

    @Test func theFixtureParses() throws {
        let image = try FirmwareImage(bytes: fixture)
        #expect(image.model == "VPOS3356")
        #expect(image.version == "2.5.0")
        #expect(image.payloadLength == 3000)
        #expect(image.bytes.count == 3028)  // 15 + N (8) + M (5) + P (3000)
        try image.check(model: "VPOS3356")
        #expect(throws: FirmwareImageError.wrongModel(image: "VPOS3356", reader: "VPOS3310")) {
            try image.check(model: "VPOS3310")
        }
        // The SDK's encoder agrees with the independent one.
        let payload = Array(fixture[(11 + 8 + 5)..<(11 + 8 + 5 + 3000)])
        #expect(FirmwareImage.encode(model: "VPOS3356", version: "2.5.0", payload: payload) == fixture)
    }

    @Test func everyWayAnImageIsWrongIsNamed() throws {
        var wrongMagic = fixture
        wrongMagic[0] = 0x50
        #expect(throws: FirmwareImageError.wrongMagic(found: [0x50, 0x50, 0x46, 0x57])) {
            try FirmwareImage(bytes: wrongMagic)
        }
        var wrongFormat = fixture
        wrongFormat[4] = 0x02
        #expect(throws: FirmwareImageError.unsupportedFormat(found: 0x02)) { try FirmwareImage(bytes: wrongFormat) }
        #expect(throws: FirmwareImageError.truncated(field: "the model", offset: 6, size: 10)) {
            try FirmwareImage(bytes: Array(fixture.prefix(10)))
        }
        #expect(throws: FirmwareImageError.wrongLength(expected: 3028, found: 3027, payloadLength: 3000)) {
            try FirmwareImage(bytes: Array(fixture.dropLast()))
        }
        #expect(throws: FirmwareImageError.wrongLength(expected: 3028, found: 3029, payloadLength: 3000)) {
            try FirmwareImage(bytes: fixture + [0])
        }
        var damaged = fixture
        damaged[100] ^= 0x01
        let error = #expect(throws: FirmwareImageError.self) { try FirmwareImage(bytes: damaged) }
        #expect(error?.code == .crcMismatch)
        #expect(error?.description.contains("0x6F01BC51") == true)
        var binaryModel = fixture
        binaryModel[6] = 0x00
        #expect(throws: FirmwareImageError.notASCII(field: "the model")) { try FirmwareImage(bytes: binaryModel) }
    }
}
