import TestEnvironment
import Testing
@testable import ReaderProtocol

/// The range checksum the frame decoder judges candidates with, against the plain CRC of
/// the same bytes (itself checked against the reveng catalogue's check values in
/// CRC16Tests): equal for every variant, every range, however the bytes were fed, from any
/// origin of the registers.
@Suite struct CRC16RangeChecksumTests {
    /// CRC-16/X-25 from the reveng catalogue: reflected, with an initial value and a final
    /// XOR, the case the others leave out. Check value 0x906E.
    static let x25 = CRC16.Variant(
        name: "CRC-16/X-25", polynomial: 0x1021, initialValue: 0xFFFF, reflected: true, finalXOR: 0xFFFF)
    static let variants: [CRC16.Variant] = [.ccittFalse, .xmodem, .kermit, x25]

    /// Bytes fed as the decoder feeds its buffer, in chunks of the given sizes, with their
    /// checkpoints.
    struct Fed {
        let checksums: CRC16RangeChecksum
        var bytes: [UInt8] = []
        var checkpoints: [UInt16]
        var endRegister: UInt16 = 0

        init(_ checksums: CRC16RangeChecksum, capacity: Int, origin: UInt16 = 0) {
            self.checksums = checksums
            checkpoints = [UInt16](repeating: 0, count: capacity / CRC16RangeChecksum.checkpointInterval + 1)
            checkpoints[0] = origin
            endRegister = origin
        }

        mutating func feed(_ chunk: [UInt8]) {
            let position = bytes.count
            bytes += chunk
            let (checksums, register) = (checksums, endRegister)
            endRegister = checkpoints.withUnsafeMutableBufferPointer { checkpoints in
                chunk.withUnsafeBufferPointer { chunk in
                    guard let base = checkpoints.baseAddress else { return 0 }
                    return checksums.feed(chunk, at: position, continuing: register, checkpoints: base)
                }
            }
        }

        /// `Z(position)` the way the decoder reads it: from the checkpoint at or before it.
        func register(at position: Int) -> UInt16 {
            let checkpoint = position - position % CRC16RangeChecksum.checkpointInterval
            return bytes.withUnsafeBufferPointer { bytes in
                checksums.advance(
                    checkpoints[checkpoint / CRC16RangeChecksum.checkpointInterval],
                    over: UnsafeBufferPointer(rebasing: bytes[checkpoint..<position]))
            }
        }

        func checksum(_ range: Range<Int>) -> UInt16 {
            checksums.checksum(
                registerAtStart: register(at: range.lowerBound), registerAtEnd: register(at: range.upperBound),
                length: range.count)
        }
    }

    @Test(arguments: variants)
    func everyRangeOfARandomStreamMatchesTheDirectChecksum(variant: CRC16.Variant) {
        var generator = SeededGenerator(seed: 0x5EED_C0DE)
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var fed = Fed(CRC16RangeChecksum(variant, longestRange: bytes.count), capacity: bytes.count)
        var position = 0
        while position < bytes.count {
            let size = min(Int.random(in: 1...23, using: &generator), bytes.count - position)
            fed.feed(Array(bytes[position..<(position + size)]))
            position += size
        }
        #expect(fed.endRegister == fed.register(at: bytes.count))
        let crc = CRC16(variant)
        var mismatches = 0
        for _ in 0..<2_000 {
            let start = Int.random(in: 0..<bytes.count, using: &generator)
            let end = Int.random(in: start...bytes.count, using: &generator)
            if fed.checksum(start..<end) != crc.checksum(bytes[start..<end]) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// The catalogue's check value, for "123456789" behind a prefix the range excludes,
    /// from a register origin that is not zero.
    @Test(arguments: zip(variants, [UInt16(0x29B1), 0x31C3, 0x2189, 0x906E]))
    func checkValueAfterAnUnrelatedPrefix(variant: CRC16.Variant, check: UInt16) {
        let bytes = Array("noise before it:123456789".utf8)
        var fed = Fed(CRC16RangeChecksum(variant, longestRange: 9), capacity: bytes.count, origin: 0xA5C3)
        fed.feed(bytes)
        #expect(fed.checksum((bytes.count - 9)..<bytes.count) == check)
    }

    /// Checkpoints moved down by whole entries with their bytes (the decoder's compaction)
    /// and fed further still give the right checksum: only differences between registers
    /// matter.
    @Test func checkpointsMovedWithTheirBytesStillWork() {
        let checksums = CRC16RangeChecksum(.ccittFalse, longestRange: 16)
        var fed = Fed(checksums, capacity: 32)
        fed.feed(Array("xxxxxxxxxx12".utf8))
        var moved = Fed(checksums, capacity: 32)
        moved.bytes = Array(fed.bytes[8...])
        moved.checkpoints = Array(fed.checkpoints[1...]) + [0]
        moved.endRegister = fed.endRegister
        moved.feed(Array("3456789".utf8))
        #expect(moved.checksum(2..<11) == 0x29B1)
    }
}
