import TestEnvironment
import Testing
@testable import ReaderProtocol

@Suite struct DataObjectListTests {
    /// A typical contactless PDOL, hand-assembled: TTQ 4, amount 6, UN 4, currency 2, date 3, type 1.
    private let pdol: [UInt8] = [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x9F, 0x37, 0x04, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01]

    /// EMV Book 3 §5.4: a DOL is tag + length pairs; values read off the bytes by hand.

    @Test func parsesTagsAndLengths() throws {
        let list = try DataObjectList(parsing: pdol)
        #expect(list.entries.map(\.tag.description) == ["9F66", "9F02", "9F37", "5F2A", "9A", "9C"])
        #expect(list.entries.map(\.length) == [4, 6, 4, 2, 3, 1])
        #expect(list.relatedDataLength == 20)
        #expect(list.encoded() == pdol)
        #expect(list.description == "9F66 04, 9F02 06, 9F37 04, 5F2A 02, 9A 03, 9C 01")
    }

    /// EMV Book 3 §5.4: values in order; a value the terminal lacks becomes zeros.
    @Test func buildsRelatedDataInOrder() throws {
        let list = try DataObjectList(parsing: pdol)
        let values: [BERTag: [UInt8]] = try [
            BERTag(0x9F66): [0x36, 0x00, 0x40, 0x00],
            BERTag(0x9F02): [0x00, 0x00, 0x00, 0x00, 0x10, 0x00],
            BERTag(0x5F2A): [0x09, 0x78],
            BERTag(0x9A): [0x25, 0x12, 0x01],
            BERTag(0x9C): [0x00],
        ]
        let data = list.relatedData { values[$0] }
        #expect(
            data.revealed() == [
                0x36, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x78,
                0x25, 0x12, 0x01, 0x00,
            ])
    }

    /// EMV Book 3 §5.4 padding and truncation, hand-applied per format:
    /// n → leading 00 / drop leftmost; cn → trailing FF; others → trailing 00 / drop rightmost.
    @Test func padsAndTruncatesByFormat() throws {
        func fit(_ tag: UInt32, _ length: Int, _ value: [UInt8]) throws -> [UInt8] {
            let list = DataObjectList(entries: [.init(tag: try BERTag(tag), length: length)])
            return list.relatedData { _ in value }.revealed()
        }
        #expect(try fit(0x9F02, 6, [0x01, 0x00]) == [0x00, 0x00, 0x00, 0x00, 0x01, 0x00])
        #expect(try fit(0x9F02, 2, [0x00, 0x00, 0x00, 0x01, 0x23, 0x45]) == [0x23, 0x45])
        #expect(try fit(0x5A, 10, [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11]) == [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0xFF, 0xFF])
        #expect(try fit(0x5A, 2, [0x41, 0x11, 0x11]) == [0x41, 0x11])
        #expect(try fit(0x50, 6, Array("VISA".utf8)) == [0x56, 0x49, 0x53, 0x41, 0x00, 0x00])
        #expect(try fit(0x9F66, 2, [0x36, 0x00, 0x40, 0x00]) == [0x36, 0x00])
        #expect(try fit(0x9F37, 6, [0xAA, 0xBB]) == [0xAA, 0xBB, 0x00, 0x00, 0x00, 0x00])
        // Constructed tags are always zero-filled (EMV Book 3 §5.4).
        #expect(try fit(0x70, 3, [0x01, 0x02, 0x03]) == [0x00, 0x00, 0x00])
        // Tags outside the catalogue are treated as binary.
        #expect(try fit(0x9F7C, 3, [0x01]) == [0x01, 0x00, 0x00])
    }

    /// Truncations, offsets hand-counted (EMV Book 3 B1/B2 tag and length rules).

    @Test func rejectsTruncatedLists() {
        #expect(throws: TLVError.truncatedTag(offset: 3)) { try DataObjectList(parsing: [0x9F, 0x66, 0x04, 0x9F]) }
        #expect(throws: TLVError.truncatedLength(offset: 2)) { try DataObjectList(parsing: [0x9F, 0x02]) }
        #expect(throws: TLVError.indefiniteLength(offset: 1)) { try DataObjectList(parsing: [0x9A, 0x80]) }
    }

    /// Property: random lists encode and parse back unchanged, and related data has the summed length.
    @Test func roundTripsRandomLists() throws {
        var generator = SeededGenerator(seed: 0x0D01)
        let tags = EMVTag.all.map(\.tag)
        for _ in 0..<500 {
            let entries = (0..<Int.random(in: 0...10, using: &generator)).map { _ in
                DataObjectList.Entry(tag: tags.randomElement(using: &generator) ?? tags[0], length: Int.random(in: 0...255, using: &generator))
            }
            let list = DataObjectList(entries: entries)
            #expect(try DataObjectList(parsing: list.encoded()) == list)
            #expect(list.relatedData { _ in [0x01, 0x02, 0x03] }.count == entries.reduce(0) { $0 + $1.length })
        }
    }
}
