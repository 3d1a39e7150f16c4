import TestEnvironment
import Testing
@testable import ReaderProtocol

@Suite struct ApplicationFileLocatorTests {
    /// Hand-assembled per EMV Book 3 §10.2: SFI 1 record 1; SFI 2 records 1–4 (2 for ODA); SFI 3 records 1–2.
    @Test func parsesEntries() throws {
        let bytes: [UInt8] = [0x08, 0x01, 0x01, 0x00, 0x10, 0x01, 0x04, 0x02, 0x18, 0x01, 0x02, 0x00]
        let afl = try ApplicationFileLocator(parsing: bytes)
        #expect(afl.entries.map(\.shortFileIdentifier) == [1, 2, 3])
        #expect(afl.entries.map(\.records) == [1...1, 1...4, 1...2])
        #expect(afl.entries.map(\.offlineAuthenticationRecordCount) == [0, 2, 0])
        #expect(afl.encoded() == bytes)
    }

    /// Bits 3–1 of byte 1 are RFU (EMV Book 3 §10.2) and do not change the SFI.
    @Test func ignoresReservedBits() throws {
        #expect(try ApplicationFileLocator(parsing: [0x0F, 0x01, 0x01, 0x00]).entries.first?.shortFileIdentifier == 1)
        #expect(try ApplicationFileLocator(parsing: []).entries.isEmpty)
    }

    /// EMV Book 3 §10.2 validity rules; entry offsets hand-counted.
    @Test(arguments: [
        ([0x08, 0x01, 0x01, 0x00, 0x10] as [UInt8], ApplicationFileLocatorError.lengthNotMultipleOfFour(5)),
        ([0x00, 0x01, 0x01, 0x00], .invalidEntry(index: 0, offset: 0, problem: .shortFileIdentifierOutOfRange(0))),
        ([0x08, 0x01, 0x01, 0x00, 0xF8, 0x01, 0x01, 0x00], .invalidEntry(index: 1, offset: 4, problem: .shortFileIdentifierOutOfRange(31))),
        ([0x08, 0x00, 0x01, 0x00], .invalidEntry(index: 0, offset: 0, problem: .firstRecordOutOfRange(0))),
        ([0x08, 0x02, 0x01, 0x00], .invalidEntry(index: 0, offset: 0, problem: .lastRecordOutOfRange(first: 2, last: 1))),
        ([0x08, 0x01, 0x02, 0x03], .invalidEntry(index: 0, offset: 0, problem: .tooManyOfflineAuthenticationRecords(count: 3, recordsInEntry: 2))),
    ])
    func rejectsInvalidLocators(bytes: [UInt8], error: ApplicationFileLocatorError) {
        #expect(throws: error) { try ApplicationFileLocator(parsing: bytes) }
    }

    /// Wording hand-written; entry 1 starts at byte 4.

    @Test func errorDescriptionsNameTheEntry() {
        let error = ApplicationFileLocatorError.invalidEntry(index: 1, offset: 4, problem: .shortFileIdentifierOutOfRange(31))
        #expect(error.description == "AFL entry 1 at offset 4: SFI 31 is outside 1…30")
    }

    /// Property: random valid entries survive encode → parse.
    @Test func roundTripsRandomLocators() throws {
        var generator = SeededGenerator(seed: 0x0AF1)
        for _ in 0..<500 {
            let entries = try (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                let first = Int.random(in: 1...255, using: &generator)
                let last = Int.random(in: first...255, using: &generator)
                return try ApplicationFileLocator.Entry(
                    shortFileIdentifier: Int.random(in: 1...30, using: &generator), firstRecord: first, lastRecord: last,
                    offlineAuthenticationRecordCount: Int.random(in: 0...(last - first + 1), using: &generator))
            }
            let afl = ApplicationFileLocator(entries: entries)
            #expect(afl.encoded().count == 4 * entries.count)
            #expect(try ApplicationFileLocator(parsing: afl.encoded()) == afl)
        }
    }
}
