/// What an EMV exchange has said so far that later commands need to be read by name: the
/// data object lists the card asked for (PDOL `9F38`, CDOL1 `8C`, CDOL2 `8D`), which name
/// the terminal data that GET PROCESSING OPTIONS and GENERATE AC send as bare values.
///
/// Feed it every command and response in order (``describeData(of:revealingCardData:)``,
/// ``observe(_:)``), as `readerctl decode` and `apdu` do.
public struct EMVSessionContext: Sendable {
    private var pdol: DataObjectList?
    private var cdol1: DataObjectList?
    private var cdol2: DataObjectList?
    private var generateACCount = 0

    /// A context that has seen nothing yet.
    public init() {}

    /// Remembers the data object lists a response carries (a newer one replaces an older).
    public mutating func observe(_ response: ResponseAPDU) {
        guard !response.data.isEmpty, let objects = try? BERTLV.parse(response.data) else { return }
        func list(_ tag: EMVTag) -> DataObjectList? {
            objects.firstDescendant(withTag: tag.tag).flatMap { try? DataObjectList(parsing: $0.value.revealed()) }
        }
        if let found = list(.pdol) {
            pdol = found
            cdol1 = nil
            cdol2 = nil
            generateACCount = 0
        }
        cdol1 = list(.cdol1) ?? cdol1
        cdol2 = list(.cdol2) ?? cdol2
    }

    /// The command's data by name: as ``CommandAPDU/describedData(revealingCardData:)``
    /// says, and, where the card's lists are known, GET PROCESSING OPTIONS' command template
    /// split by the PDOL into the values it asked for, and GENERATE AC's data split by CDOL1
    /// (the first GENERATE AC) or CDOL2 (the second). Card data is masked by tag as always.
    public mutating func describeData(of command: CommandAPDU, revealingCardData reveal: Bool = false)
        -> [EMVDataElementDescription]?
    {
        let renderer = EMVDataRenderer(revealingCardData: reveal)
        switch command.ins {
        case 0xA4:
            // A new selection starts a new transaction: its first GENERATE AC uses CDOL1.
            generateACCount = 0
            return command.describedData(revealingCardData: reveal)
        case 0xA8:
            guard var described = command.describedData(revealingCardData: reveal) else { return nil }
            if let pdol, let template = try? BERTLV.parse(command.data).first(withTag: EMVTag.commandTemplate.tag),
                let values = renderer.describe(template.value, as: pdol), !described.isEmpty
            {
                // The values by tag, each masked as its tag says; not the template's bytes whole.
                described[0].children = values
                described[0].value = nil
                described[0].hex = nil
            }
            return described
        case 0xAE:
            generateACCount += 1
            guard let list = generateACCount == 1 ? cdol1 : cdol2 else { return nil }
            return renderer.describe(command.data, as: list)
        default:
            return command.describedData(revealingCardData: reveal)
        }
    }
}

extension EMVDataRenderer {
    /// Related data (values concatenated as a DOL asked for them) as one description per
    /// entry, each read and masked by its tag; nil when the lengths do not add up.
    func describe(_ data: SensitiveBytes, as list: DataObjectList) -> [EMVDataElementDescription]? {
        guard data.count == list.relatedDataLength, !list.entries.isEmpty else { return nil }
        var offset = 0
        let objects = data.withUnsafeBytes { raw in
            list.entries.map { entry in
                defer { offset += entry.length }
                return BERTLV(tag: entry.tag, value: SensitiveBytes(raw[offset..<offset + entry.length]))
            }
        }
        return describe(objects)
    }
}
