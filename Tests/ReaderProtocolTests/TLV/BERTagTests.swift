import Testing
@testable import ReaderProtocol

@Suite struct BERTagTests {
    /// Class and constructed bits per EMV Book 3 Annex B1 (ISO/IEC 8825-1), decoded by hand:
    /// 9F = 10 0 11111, 70 = 01 1 10000, BF = 10 1 11111, 5F = 01 0 11111, DF = 11 0 11111, 4F = 01 0 01111.
    @Test func decodesClassAndConstructedFlag() throws {
        let cases: [(UInt32, BERTag.TagClass, Bool, Int)] = [
            (0x9F26, .contextSpecific, false, 2), (0x70, .application, true, 1), (0xBF0C, .contextSpecific, true, 2),
            (0x5F20, .application, false, 2), (0xDF01, .private, false, 2), (0x4F, .application, false, 1),
            (0x06, .universal, false, 1),
        ]
        for (value, tagClass, constructed, length) in cases {
            let tag = try BERTag(value)
            #expect(tag.tagClass == tagClass, "\(tag)")
            #expect(tag.isConstructed == constructed, "\(tag)")
            #expect(tag.bytes.count == length, "\(tag)")
            #expect(tag.value == value)
        }
    }

    /// Hex of the tag bytes, hand-written.

    @Test func describesAsHex() throws {
        #expect(try BERTag(0x9F26).description == "9F26")
        #expect(try BERTag(bytes: [0x5A]).description == "5A")
        #expect(try BERTag(0x0A).description == "0A")
    }

    /// EMV Book 3 B1: after a first byte with low bits 11111, bytes continue while bit 8 is set.
    @Test func rejectsMalformedTags() throws {
        #expect(throws: BERTagError.empty) { try BERTag(bytes: []) }
        #expect(throws: BERTagError.truncated) { try BERTag(0x9F) }
        #expect(throws: BERTagError.truncated) { try BERTag(bytes: [0x9F, 0x81]) }
        #expect(throws: BERTagError.trailingBytes(1)) { try BERTag(bytes: [0x9F, 0x26, 0x01]) }
        #expect(throws: BERTagError.trailingBytes(1)) { try BERTag(0x5A01) }
        #expect(throws: BERTagError.tooLong) { try BERTag(bytes: [0x9F, 0x81, 0x81, 0x81, 0x01]) }
        #expect(try BERTag(bytes: [0x9F, 0x81, 0x81, 0x01]).bytes.count == 4)
    }
}

@Suite struct EMVTagTests {
    /// The tags the SDK must name (EMV Book 3 Annex A and the contactless kernels).
    @Test func catalogueCoversTheRequiredTags() throws {
        let required: [UInt32] = [
            0x4F, 0x50, 0x57, 0x5A, 0x5F20, 0x5F24, 0x5F25, 0x5F28, 0x5F2D, 0x5F34, 0x61, 0x6F, 0x70, 0x77, 0x80,
            0x82, 0x84, 0x87, 0x88, 0x8C, 0x8D, 0x8E, 0x8F, 0x94, 0x9F07, 0x9F08, 0x9F0D, 0x9F0E, 0x9F0F, 0x9F10,
            0x9F12, 0x9F26, 0x9F27, 0x9F36, 0x9F38, 0x9F42, 0x9F4A, 0xA5, 0xBF0C, 0x9F02, 0x9F03, 0x9F1A, 0x95,
            0x5F2A, 0x9A, 0x9C, 0x9F37, 0x9F66, 0x9F35, 0x9F33, 0x9F40, 0x9F1F, 0x56, 0x9F6B,
        ]
        for value in required {
            let tag = try BERTag(value)
            #expect(EMVTag.lookup(tag) != nil, "\(tag)")
        }
        #expect(try EMVTag.lookup(BERTag(0x9F26))?.name == "Application Cryptogram")
    }

    /// Every catalogue tag is a valid BER tag (EMV Book 3 B1) and appears once.

    @Test func catalogueTagsAreWellFormedAndUnique() throws {
        for entry in EMVTag.all {
            #expect(try BERTag(bytes: entry.tag.bytes) == entry.tag, "\(entry)")
        }
        #expect(Set(EMVTag.all.map(\.tag)).count == EMVTag.all.count)
    }

    /// Card data per the brief and PCI DSS: PAN, track data, name, discretionary data.
    @Test func marksCardDataSensitive() throws {
        for value: UInt32 in [0x5A, 0x57, 0x5F20, 0x56, 0x9F1F, 0x9F6B, 0x9F20, 0x9F0B, 0x99] {
            #expect(EMVTag.isSensitive(try BERTag(value)), "\(value)")
        }
        for value: UInt32 in [0x9F26, 0x4F, 0x94, 0x9F02, 0x82] {
            #expect(!EMVTag.isSensitive(try BERTag(value)), "\(value)")
        }
        #expect(EMVTag.isSensitive(try BERTag(0x9F7C)))
    }

    /// Formats from EMV Book 3 Annex A.
    @Test func knowsFormats() {
        #expect(EMVTag.amountAuthorised.format == .numeric)
        #expect(EMVTag.applicationPAN.format == .compressedNumeric)
        #expect(EMVTag.applicationLabel.format == .alphanumeric)
        #expect(EMVTag.unpredictableNumber.format == .binary)
        #expect(EMVTag.readRecordResponseTemplate.tag.isConstructed)
        #expect(!EMVTag.responseMessageTemplateFormat1.tag.isConstructed)
    }
}
