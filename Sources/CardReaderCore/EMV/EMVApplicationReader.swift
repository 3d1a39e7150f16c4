import ReaderProtocol

/// The EMV read flow (EMV Book 1 §12, Book 3 §10.1–10.2), over any way of exchanging APDUs:
/// SELECT PPSE, choose the application, SELECT it, GET PROCESSING OPTIONS with the PDOL
/// filled from ``EMVTerminalData``, then READ RECORD for every record the AFL names.
struct EMVApplicationReader: Sendable {
    /// The PPSE's name (EMV Book B §3.3), `2PAY.SYS.DDF01`.
    static let ppse = Array("2PAY.SYS.DDF01".utf8)
    /// AIDs tried one by one when the card has no PPSE: Visa, Mastercard, Maestro, Amex,
    /// Discover, JCB, UnionPay.
    static let knownApplications: [[UInt8]] = [
        [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10], [0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10],
        [0xA0, 0x00, 0x00, 0x00, 0x04, 0x30, 0x60], [0xA0, 0x00, 0x00, 0x00, 0x25, 0x01],
        [0xA0, 0x00, 0x00, 0x01, 0x52, 0x30, 0x10], [0xA0, 0x00, 0x00, 0x00, 0x65, 0x10, 0x10],
        [0xA0, 0x00, 0x00, 0x03, 0x33, 0x01, 0x01],
    ]

    /// The most PDOL related data GET PROCESSING OPTIONS carries: a short APDU's 255 data
    /// bytes hold the command template `83 81 LL` and 252 bytes.
    static let maximumPDOLRelatedDataLength = 252

    let terminal: EMVTerminalData
    let transmit: @Sendable (CommandAPDU) async throws(CardReaderError) -> ResponseAPDU

    func read() async throws(CardReaderError) -> EMVCard {
        let (aid, fci) = try await selectApplication()
        let processingOptions = try await getProcessingOptions(fci: fci)
        let locator = try applicationFileLocator(in: processingOptions)
        var records: [BERTLV] = []
        for entry in locator.entries {
            for record in entry.records {
                records += try await readRecord(record, file: entry.shortFileIdentifier)
            }
        }
        return try EMVCard(
            applicationIdentifier: aid, fileControlInformation: fci, processingOptions: processingOptions, records: records)
    }

    // MARK: - Steps

    private func selectApplication() async throws(CardReaderError) -> (aid: [UInt8], fci: [BERTLV]) {
        let directory = try await transmit(try command { () throws(APDUError) in try .select(name: Self.ppse) })
        var candidates: [[UInt8]]
        if directory.statusWord == .success {
            candidates = try applications(inDirectory: try parse(directory.data, step: "SELECT PPSE"))
            guard !candidates.isEmpty else { throw .invalidCardData("the PPSE lists no application") }
        } else if directory.statusWord == StatusWord(0x6A82) {
            candidates = Self.knownApplications
        } else {
            throw .cardRefused(step: "SELECT PPSE", directory.statusWord)
        }
        var answers: [StatusWord] = []
        for aid in candidates {
            let answer = try await transmit(try command { () throws(APDUError) in try .select(name: aid) })
            if answer.statusWord == .success {
                return (aid, try parse(answer.data, step: "SELECT AID"))
            }
            guard answer.statusWord == StatusWord(0x6A82) || answer.statusWord == StatusWord(0x6283) else {
                throw .cardRefused(step: "SELECT AID", answer.statusWord)
            }
            answers.append(answer.statusWord)
        }
        // What the card answered says why: SW and meaning, e.g. 6A82 (file or application not found).
        let said = Set(answers.map(\.description)).sorted().joined(separator: ", ")
        throw .invalidCardData(
            "no application could be selected: \(candidates.count) tried, SELECT answered \(said.isEmpty ? "nothing" : said)")
    }

    /// The directory's applications (61 entries), highest priority first (87: lower is
    /// higher; 0 or absent means no priority, ranked last).
    private func applications(inDirectory fci: [BERTLV]) throws(CardReaderError) -> [[UInt8]] {
        let entries = fci.allDescendants(withTag: EMVTag.applicationTemplate.tag)
        let ranked = entries.compactMap { entry -> (aid: [UInt8], rank: Int)? in
            guard let aid = entry.children.first(withTag: EMVTag.applicationIdentifier.tag)?.value.revealed() else {
                return nil
            }
            let priority = entry.children.first(withTag: EMVTag.applicationPriorityIndicator.tag)?.value.revealed().first
            let rank = Int((priority ?? 0) & 0x0F)
            return (aid, rank == 0 ? 16 : rank)
        }
        return ranked.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(\.element.aid)
    }

    private func getProcessingOptions(fci: [BERTLV]) async throws(CardReaderError) -> [BERTLV] {
        var pdolData = SensitiveBytes()
        if let pdol = fci.firstDescendant(withTag: EMVTag.pdol.tag) {
            let list: DataObjectList
            do {
                list = try DataObjectList(parsing: pdol.value.revealed())
            } catch {
                throw .invalidCardData("the PDOL does not parse: \(error)")
            }
            // The card sets each length (up to 16 MB): check the total before filling it in.
            guard list.relatedDataLength <= Self.maximumPDOLRelatedDataLength else {
                throw .invalidCardData(
                    "the PDOL asks for \(list.relatedDataLength) bytes, more than GET PROCESSING OPTIONS carries"
                        + " (\(Self.maximumPDOLRelatedDataLength))")
            }
            pdolData = list.relatedData(lookup: terminal.value(for:))
        }
        let data = pdolData
        let answer = try await transmit(try command { () throws(APDUError) in try .getProcessingOptions(pdolData: data) })
        guard answer.statusWord == .success else { throw .cardRefused(step: "GET PROCESSING OPTIONS", answer.statusWord) }
        return try parse(answer.data, step: "GET PROCESSING OPTIONS")
    }

    /// The AFL from a format 2 answer (77 … 94) or a format 1 answer (80: AIP then AFL).
    private func applicationFileLocator(in options: [BERTLV]) throws(CardReaderError) -> ApplicationFileLocator {
        let bytes: [UInt8]
        if let afl = options.firstDescendant(withTag: EMVTag.applicationFileLocator.tag) {
            bytes = afl.value.revealed()
        } else if let format1 = options.first(withTag: EMVTag.responseMessageTemplateFormat1.tag) {
            bytes = Array(format1.value.revealed().dropFirst(2))
        } else {
            throw .invalidCardData("GET PROCESSING OPTIONS returned no AFL")
        }
        do {
            return try ApplicationFileLocator(parsing: bytes)
        } catch {
            throw .invalidCardData("the AFL is invalid: \(error)")
        }
    }

    private func readRecord(_ record: Int, file: Int) async throws(CardReaderError) -> [BERTLV] {
        let answer = try await transmit(
            try command { () throws(APDUError) in try .readRecord(record, shortFileIdentifier: file) })
        guard answer.statusWord == .success else {
            throw .cardRefused(step: "READ RECORD \(record) of SFI \(file)", answer.statusWord)
        }
        let objects = try parse(answer.data, step: "READ RECORD")
        guard objects.first?.tag == EMVTag.readRecordResponseTemplate.tag else {
            throw .invalidCardData("record \(record) of SFI \(file) is not a record template (70)")
        }
        return objects
    }

    // MARK: - Helpers

    private func command(_ build: () throws(APDUError) -> CommandAPDU) throws(CardReaderError) -> CommandAPDU {
        do {
            return try build()
        } catch {
            throw .invalidRequest(error.description)
        }
    }

    private func parse(_ data: SensitiveBytes, step: String) throws(CardReaderError) -> [BERTLV] {
        do {
            return try BERTLV.parse(data)
        } catch {
            throw .invalidCardData("the answer to \(step) is not BER-TLV: \(error)")
        }
    }
}

extension Sequence<BERTLV> {
    /// Every object with `tag`, at any depth, in document order.
    func allDescendants(withTag tag: BERTag) -> [BERTLV] {
        flatMap { object in (object.tag == tag ? [object] : []) + object.children.allDescendants(withTag: tag) }
    }
}

extension CardReader {
    /// Reads the EMV application of the powered chip card: the masked card number, expiry,
    /// cardholder name, application label and AID, with every data object read.
    public func readEMVCard(terminal: EMVTerminalData = EMVTerminalData()) async throws(CardReaderError) -> EMVCard {
        let reader = EMVApplicationReader(terminal: terminal) { (apdu) throws(CardReaderError) in
            try await self.transmit(apdu)
        }
        return try await reader.read()
    }
}
