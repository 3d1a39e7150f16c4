import TestEnvironment
import Testing
@testable import ReaderProtocol

/// A PSE FCI assembled by hand per EMV Book 1 §11.3.4: 6F { 84 "1PAY.SYS.DDF01", A5 { 88 01, 5F2D "en" } }.
/// Lengths: 84 → 2 + 14 = 16; A5 value = 3 + 5 = 8, so A5 → 10; 6F value = 26 = 0x1A.
private let pseFCI: [UInt8] =
    [0x6F, 0x1A, 0x84, 0x0E] + Array("1PAY.SYS.DDF01".utf8) + [0xA5, 0x08, 0x88, 0x01, 0x01, 0x5F, 0x2D, 0x02, 0x65, 0x6E]

@Suite struct BERTLVTests {
    /// Structure and values of the hand-assembled PSE FCI above (EMV Book 1 §11.3.4).
    @Test func parsesNestedTemplates() throws {
        let objects = try BERTLV.parse(pseFCI)
        #expect(objects.count == 1)
        let fci = try #require(objects.first)
        #expect(fci.tag == EMVTag.fileControlInformationTemplate.tag)
        #expect(fci.children.map(\.tag) == [EMVTag.dedicatedFileName.tag, EMVTag.fciProprietaryTemplate.tag])
        #expect(fci.children.first?.value.revealed() == Array("1PAY.SYS.DDF01".utf8))
        #expect(fci.firstDescendant(withTag: EMVTag.shortFileIdentifier.tag)?.value.revealed() == [0x01])
        #expect(fci.firstDescendant(withTag: EMVTag.languagePreference.tag)?.value.revealed() == Array("en".utf8))
        #expect(objects.first(withTag: EMVTag.shortFileIdentifier.tag) == nil)
        #expect(objects.firstDescendant(withTag: EMVTag.shortFileIdentifier.tag) != nil)
        #expect(fci.encoded().revealed() == pseFCI)
    }

    /// EMV Book 3 Annex B: 00 bytes before, between and after objects carry no meaning.
    @Test func skipsZeroPadding() throws {
        let padded: [UInt8] = [0x00, 0x00, 0x5A, 0x01, 0x41, 0x00, 0x70, 0x04, 0x00, 0x88, 0x01, 0x02, 0x00, 0x00]
        let objects = try BERTLV.parse(padded)
        #expect(objects.map(\.tag) == [EMVTag.applicationPAN.tag, EMVTag.readRecordResponseTemplate.tag])
        #expect(objects[1].children.map(\.tag) == [EMVTag.shortFileIdentifier.tag])
        #expect(try BERTLV.parse([0x00, 0x00]).isEmpty)
    }

    /// EMV Book 3 Annex B names only 00 as filler: FF starts a multi-byte tag (ISO/IEC 8825-1).
    @Test func doesNotTreatFFAsPadding() {
        #expect(throws: TLVError.truncatedTag(offset: 2)) { try BERTLV.parse([0x5A, 0x00, 0xFF]) }
        #expect(throws: TLVError.truncatedTag(offset: 0)) { try BERTLV.parse([0xFF, 0xFF]) }
    }

    /// Length field forms of EMV Book 3 Annex B2, hand-assembled.
    @Test func readsLongFormLengths() throws {
        for (field, length) in [([0x81, 0x80], 128), ([0x82, 0x01, 0x00], 256), ([0x83, 0x01, 0x00, 0x00], 65_536)] as [([UInt8], Int)] {
            let value = [UInt8](repeating: 0xAB, count: length)
            let objects = try BERTLV.parse([0x9F, 0x10] + field + value)
            #expect(objects.first?.value.count == length)
        }
        // Non-minimal but valid BER: 81 05.
        #expect(try BERTLV.parse([0x5A, 0x81, 0x02, 0x12, 0x34]).first?.value.revealed() == [0x12, 0x34])
    }

    /// Minimal length encoding per EMV Book 3 Annex B2: 1 byte up to 127, then 81, 82, 83.
    @Test func encodesMinimalLengths() {
        let tag = EMVTag.issuerApplicationData.tag
        let cases: [(Int, [UInt8])] = [
            (0, [0x00]), (127, [0x7F]), (128, [0x81, 0x80]), (255, [0x81, 0xFF]), (256, [0x82, 0x01, 0x00]),
            (65_535, [0x82, 0xFF, 0xFF]), (65_536, [0x83, 0x01, 0x00, 0x00]),
        ]
        for (length, field) in cases {
            let encoded = BERTLV(tag: tag, value: [UInt8](repeating: 1, count: length)).encoded().revealed()
            #expect(Array(encoded.prefix(2 + field.count)) == [0x9F, 0x10] + field, "length \(length)")
            #expect(encoded.count == 2 + field.count + length)
        }
    }

    /// Malformed inputs; offsets hand-counted.
    @Test(arguments: [
        ([0x9F] as [UInt8], TLVError.truncatedTag(offset: 0)),
        ([0x5A, 0x01, 0x11, 0x9F, 0x81], .truncatedTag(offset: 3)),
        ([0x9F, 0x81, 0x81, 0x81, 0x01, 0x00], .tagTooLong(offset: 0)),
        ([0x5A], .truncatedLength(offset: 1)),
        ([0x5A, 0x81], .truncatedLength(offset: 1)),
        ([0x5A, 0x82, 0x01], .truncatedLength(offset: 1)),
        ([0x5A, 0x05, 0x01, 0x02], .truncatedValue(offset: 2, declared: 5, available: 2)),
        ([0x70, 0x80, 0x5A, 0x01, 0x11, 0x00, 0x00], .indefiniteLength(offset: 1)),
        ([0x5A, 0x84, 0x00, 0x00, 0x00, 0x01, 0x00], .lengthFieldTooLong(offset: 1, lengthByteCount: 4)),
        ([0x5A, 0xFF], .lengthFieldTooLong(offset: 1, lengthByteCount: 127)),
        (
            [0x70, 0x03, 0x5A, 0x05, 0x01],
            .malformedConstructedValue(
                tag: EMVTag.readRecordResponseTemplate.tag, offset: 0,
                reason: .truncatedValue(offset: 4, declared: 5, available: 1))
        ),
        // The innermost constructed object is named; its ancestors do not wrap the error again.
        (
            [0x70, 0x05, 0x61, 0x03, 0x5A, 0x02, 0x01],
            .malformedConstructedValue(
                tag: EMVTag.applicationTemplate.tag, offset: 2,
                reason: .truncatedValue(offset: 6, declared: 2, available: 1))
        ),
    ])
    func rejectsMalformedInput(bytes: [UInt8], error: TLVError) {
        #expect(throws: error) { try BERTLV.parse(bytes) }
    }

    /// A constructed value must hold whole objects: a child cannot run past its parent.
    @Test func childCannotOverrunItsParent() {
        // 70 02 { 5A 01 } then 11: the 5A's value byte lies outside the 70.
        #expect(
            throws: TLVError.malformedConstructedValue(
                tag: EMVTag.readRecordResponseTemplate.tag, offset: 0,
                reason: .truncatedValue(offset: 4, declared: 1, available: 0))
        ) { try BERTLV.parse([0x70, 0x02, 0x5A, 0x01, 0x11]) }
    }

    /// Depth bound: 32 nested templates parse, 33 do not. Each wrapper is 70 + 1 length byte
    /// (all lengths < 128), so the 33rd wrapper starts at offset 64 inside the 32nd at 62.
    @Test func boundsNestingDepth() throws {
        func nested(_ levels: Int) -> [UInt8] {
            var bytes: [UInt8] = [0x5A, 0x01, 0x11]
            for _ in 0..<levels { bytes = [0x70, UInt8(bytes.count)] + bytes }
            return bytes
        }
        var object = try #require(try BERTLV.parse(nested(32)).first)
        for _ in 0..<31 { object = try #require(object.children.first) }
        #expect(object.children.first?.tag == EMVTag.applicationPAN.tag)
        #expect(
            throws: TLVError.malformedConstructedValue(
                tag: EMVTag.readRecordResponseTemplate.tag, offset: 62, reason: .nestingTooDeep(offset: 64, limit: 32))
        ) { try BERTLV.parse(nested(33)) }
    }

    /// Wording hand-written; offsets as in the malformed-input table.

    @Test func errorDescriptionsNameOffsets() {
        let error = TLVError.malformedConstructedValue(
            tag: EMVTag.readRecordResponseTemplate.tag, offset: 0, reason: .truncatedValue(offset: 4, declared: 5, available: 1))
        #expect(
            error.description
                == "constructed object 70 at offset 0 holds invalid BER-TLV: value at offset 4 is declared 5 bytes long but only 1 remain")
    }

    /// Redaction: tag names and sizes show, the PAN does not (ASCII, hex or decimal).

    @Test func renderingsHideValues() throws {
        // 70 { 5A 08 4111111111111111 } — the PAN as tag 5A (EMV Book 3 Annex A, cn).
        let pan: [UInt8] = [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11]
        let objects = try BERTLV.parse([0x70, 0x0A, 0x5A, 0x08] + pan)
        #expect(!anyRendering(of: objects, contains: ["4111111111111111", hexString(pan), "41, 11", "65, 17"]))
        #expect(objects.first?.description == "70 READ RECORD Response Message Template, 1 object")
        #expect(
            objects.first?.children.first?.description == "5A Application Primary Account Number (PAN): 411111******1111 (masked)")
    }

    /// Values that are not card data show by name (EMV Book 3 Annex A: 50 is `ans`).
    @Test func descriptionsShowWhatIsNotCardData() throws {
        let label = BERTLV(tag: EMVTag.applicationLabel.tag, value: Array("VISA CREDIT".utf8))
        #expect(label.description == "50 Application Label: VISA CREDIT")
        let name = BERTLV(tag: EMVTag.cardholderName.tag, value: Array("DOE/JOHN".utf8))
        #expect(name.description == "5F20 Cardholder Name: 8 bytes, hidden")
    }

    /// Property: random trees (short and long values, nesting) encode and parse back unchanged.
    @Test func roundTripsRandomTrees() throws {
        var generator = SeededGenerator(seed: 0x8825_0001)
        let primitiveTags = try [0x5A, 0x9F26, 0x57, 0x5F20, 0x9F10, 0xDF8101, 0x80, 0x94].map { try BERTag($0) }
        let constructedTags = try [0x70, 0x77, 0x6F, 0xA5, 0xBF0C, 0x61, 0xFF01].map { try BERTag($0) }
        func randomTree(depth: Int) -> BERTLV {
            if depth < 4, Int.random(in: 0..<3, using: &generator) == 0 {
                let tag = constructedTags.randomElement(using: &generator) ?? constructedTags[0]
                let children = (0..<Int.random(in: 0...3, using: &generator)).map { _ in randomTree(depth: depth + 1) }
                return BERTLV(tag: tag, children: children)
            }
            let tag = primitiveTags.randomElement(using: &generator) ?? primitiveTags[0]
            let length = Int.random(in: 0...(Bool.random(using: &generator) ? 20 : 600), using: &generator)
            return BERTLV(tag: tag, value: generator.bytes(count: length))
        }
        for _ in 0..<500 {
            let objects = (0..<Int.random(in: 1...4, using: &generator)).map { _ in randomTree(depth: 0) }
            #expect(try BERTLV.parse(objects.encoded()) == objects)
        }
    }

    /// Property: on arbitrary bytes the parser returns or throws (never traps), and whatever it
    /// accepts re-encodes to bytes that parse to the same objects.
    @Test func survivesRandomBytes() throws {
        var generator = SeededGenerator(seed: 0x8825_0002)
        var accepted = 0
        for _ in 0..<500 {
            let bytes = generator.bytes(count: Int.random(in: 0...64, using: &generator))
            guard let objects = try? BERTLV.parse(bytes) else { continue }
            accepted += 1
            #expect(try BERTLV.parse(objects.encoded()) == objects)
        }
        #expect(accepted > 0)
    }
}
