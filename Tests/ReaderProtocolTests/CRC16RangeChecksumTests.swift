import Testing
@testable import ReaderProtocol

/// The range checksum the frame decoder judges candidates with, against the plain CRC of
/// the same bytes (itself checked against the reveng catalogue's check values in
/// CRC16Tests): equal for every variant, every range, from any origin of the registers.
@Suite struct CRC16RangeChecksumTests {
    /// CRC-16/X-25 from the reveng catalogue: reflected, with an initial value and a final
    /// XOR, the case the others leave out. Check value 0x906E.
    static let x25 = CRC16.Variant(
        name: "CRC-16/X-25", polynomial: 0x1021, initialValue: 0xFFFF, reflected: true, finalXOR: 0xFFFF)
    static let variants: [CRC16.Variant] = [.ccittFalse, .xmodem, .kermit, x25]

    /// Registers from a zero start over `bytes`, as the decoder keeps them.
    private func registers(_ bytes: [UInt8], _ checksums: CRC16RangeChecksum) -> [UInt16] {
        var registers: [UInt16] = []
        bytes.withUnsafeBufferPointer { checksums.appendRegisters(over: $0, to: &registers) }
        return registers
    }

    @Test(arguments: variants)
    func everyRangeOfARandomStreamMatchesTheDirectChecksum(variant: CRC16.Variant) {
        var generator = SeededGenerator(seed: 0x5EED_C0DE)
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let checksums = CRC16RangeChecksum(variant, longestRange: bytes.count)
        let registers = registers(bytes, checksums)
        let crc = CRC16(variant)
        var mismatches = 0
        for _ in 0..<2_000 {
            let start = Int.random(in: 1..<bytes.count, using: &generator)
            let end = Int.random(in: start...bytes.count, using: &generator)
            let ranged = checksums.checksum(
                registerAtStart: registers[start - 1], registerAtEnd: registers[end - 1], length: end - start)
            if ranged != crc.checksum(bytes[start..<end]) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// The catalogue's check value, for "123456789" behind a prefix the range excludes.
    @Test(arguments: zip(variants, [UInt16(0x29B1), 0x31C3, 0x2189, 0x906E]))
    func checkValueAfterAnUnrelatedPrefix(variant: CRC16.Variant, check: UInt16) {
        let bytes = Array("noise before it:123456789".utf8)
        let checksums = CRC16RangeChecksum(variant, longestRange: 9)
        let registers = registers(bytes, checksums)
        let start = bytes.count - 9
        #expect(
            checksums.checksum(registerAtStart: registers[start - 1], registerAtEnd: registers[bytes.count - 1], length: 9)
                == check)
    }

    /// Registers continued after the buffer was cut at its front (the decoder's compaction)
    /// still give the right checksum: only differences between registers matter.
    @Test func registersContinuedAfterCompactionStillWork() {
        let checksums = CRC16RangeChecksum(.ccittFalse, longestRange: 16)
        var registers = registers(Array("xxxxxxxx".utf8), checksums)
        registers.removeFirst(7)
        let tail = Array("123456789".utf8)
        tail.withUnsafeBufferPointer { checksums.appendRegisters(over: $0, to: &registers) }
        #expect(checksums.checksum(registerAtStart: registers[0], registerAtEnd: registers[9], length: 9) == 0x29B1)
    }
}
