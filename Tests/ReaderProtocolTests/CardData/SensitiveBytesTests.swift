import Testing
@testable import ReaderProtocol

@Suite struct SensitiveBytesTests {
    // Expected values: hand-computed from the inputs.

    @Test func holdsAndRevealsItsBytes() {
        let bytes = SensitiveBytes([1, 2, 3])
        #expect(bytes.count == 3)
        #expect(!bytes.isEmpty)
        #expect(bytes.revealed() == [1, 2, 3])
        #expect(SensitiveBytes().isEmpty)
    }

    /// Equality by content, hand-chosen pairs.

    @Test func equalityAndHashingFollowContent() {
        #expect(SensitiveBytes([1, 2, 3]) == SensitiveBytes([1, 2, 3]))
        #expect(SensitiveBytes([1, 2, 3]) != SensitiveBytes([1, 2, 4]))
        #expect(SensitiveBytes([1, 2]) != SensitiveBytes([1, 2, 0]))
        #expect(Set([SensitiveBytes([7]), SensitiveBytes([7]), SensitiveBytes([8])]).count == 2)
    }

    /// Copy-on-write: mutating a copy leaves the original as it was.

    @Test func copiesAreIndependentAfterMutation() {
        let original = SensitiveBytes([1, 2, 3])
        var copy = original
        copy.append(4)
        #expect(original.revealed() == [1, 2, 3])
        #expect(copy.revealed() == [1, 2, 3, 4])
    }

    /// Content survives many reallocations; expected bytes computed independently.

    @Test func appendingGrowsAcrossReallocations() {
        var bytes = SensitiveBytes()
        for value in 0..<1000 { bytes.append(UInt8(truncatingIfNeeded: value)) }
        bytes.append(contentsOf: SensitiveBytes([9, 9]))
        #expect(bytes.count == 1002)
        #expect(bytes.revealed() == (0..<1000).map { UInt8(truncatingIfNeeded: $0) } + [9, 9])
    }

    /// The wipe the storage runs on release leaves only zeros.

    @Test func wipeZeroesTheBuffer() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xAA)
        SensitiveBytes.wipe(buffer)
        #expect(buffer.allSatisfy { $0 == 0 })
    }

    /// Redaction: neither ASCII, hex nor decimal bytes show; 16 hand-counted.

    @Test func renderingsShowOnlyTheLength() {
        let secret = Array("4111111111111111".utf8)
        let bytes = SensitiveBytes(secret)
        #expect(!anyRendering(of: bytes, contains: ["4111111111111111", hexString(secret), "52, 49"]))
        #expect("\(bytes)" == "16 sensitive bytes")
    }
}
