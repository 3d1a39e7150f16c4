import FuzzSupport
import ReaderProtocol

/// BER-TLV and the EMV structures inside it, on arbitrary bytes: data objects (a READ RECORD
/// template, an FCI), a data object list (PDOL) and its related data, an Application File
/// Locator, and one tag.
///
/// Whatever parses must parse again, equal, from its own encoding (the canonical form:
/// minimal lengths, no `00` padding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBERTLV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        if let objects = try? BERTLV.parse(bytes) {
            let encoded = objects.encoded()
            check((try? BERTLV.parse(encoded)) == objects, "BER-TLV does not parse again from its own encoding")
            check(encoded.count <= bytes.count, "the canonical encoding is longer than the input")
            for object in objects {
                _ = object.description
                _ = object.firstDescendant(withTag: track2Tag)
            }
            // Rendering by name ends, and masks every card-data tag's value whatever the bytes.
            let masked = EMVDataRenderer().describe(objects)
            check(!masked.contains(where: showsCardData), "the masked rendering shows a card-data tag's bytes")
            _ = masked.lines()
            _ = EMVDataRenderer(revealingCardData: true).describe(objects).lines()
        }

        if let list = try? DataObjectList(parsing: bytes) {
            check((try? DataObjectList(parsing: list.encoded())) == list, "a DOL does not parse again from its encoding")
            if list.entries.count <= 16 { _ = list.description }
            // The caller bounds what it fills in (a card can ask for 16 MB per entry; the EMV
            // read allows 252 bytes).
            if list.relatedDataLength <= 1024 {
                let related = list.relatedData { tag in Array(bytes.prefix(Int(tag.bytes[0] & 0x1F))) }
                check(related.count == list.relatedDataLength, "related data of the wrong length")
            }
        }

        if let locator = try? ApplicationFileLocator(parsing: bytes) {
            check((try? ApplicationFileLocator(parsing: locator.encoded())) == locator, "an AFL does not parse again")
            _ = locator.entries.map(\.records)
        }

        if let tag = try? BERTag(bytes: bytes.prefix(BERTag.maximumLength + 1)) {
            check((try? BERTag(tag.value)) == tag, "a tag does not parse again from its value")
        }
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("ber_tlv_main")
public func mainBERTLV(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzBERTLV) { fixtures in
        try fixtures.cards().flatMap { card in
            (card.chip?.applications ?? []).flatMap { application in
                application.records.map { $0.template.revealed() }
                    + [application.fileLocator.encoded()]
                    + [application.processingOptionsDataObjectList?.encoded() ?? []]
            }
        }
    }
}

private let track2Tag = EMVTag.track2EquivalentData.tag

/// Whether a description, or one inside it, shows the bytes or the whole value of a tag the
/// catalogue marks as card data.
private func showsCardData(_ description: EMVDataElementDescription) -> Bool {
    let protection = cardDataTags[description.tag] ?? .none
    if protection != .none, description.hex != nil || (description.value != nil && description.redaction == nil) {
        return true
    }
    return (description.children ?? []).contains(where: showsCardData)
}

private let cardDataTags = Dictionary(uniqueKeysWithValues: EMVTag.all.map { ($0.tag.description, $0.protection) })
