import ReaderProtocol

/// What an emulated chip card answers at the application level (EMV Book 1 §11, Book 3
/// §6.5): SELECT of the PPSE or an AID, GET PROCESSING OPTIONS and READ RECORD, with the
/// whole response each time. ``T0CardChannel`` turns these into what the card says over T=0.
///
/// Supported: `00 A4 04 00` SELECT by name (exact AID or a prefix of at least 5 bytes),
/// `80 A8 00 00` GET PROCESSING OPTIONS (format 2 answer), `00 B2` READ RECORD (P2 = SFI << 3 | 4).
/// Anything else: `6E00` for a class the card does not use with that instruction, `6D00`
/// for an instruction it does not know (GENERATE AC, GET DATA, VERIFY … are not emulated).
struct EMVCardApplication: Sendable {
    /// `2PAY.SYS.DDF01`: the payment system environment directory the card lists its applications in.
    static let directoryName = Array("2PAY.SYS.DDF01".utf8)

    private let chip: EmulatedCard.Chip
    /// The selected application's index; `nil` with the directory or nothing selected.
    private var selected: Int?
    /// Whether GET PROCESSING OPTIONS has run for the selected application.
    private var processing = false

    init(chip: EmulatedCard.Chip) {
        self.chip = chip
    }

    /// The full response to `command`.
    mutating func respond(to command: CommandAPDU) -> ResponseAPDU {
        let instructions: [UInt8: UInt8] = [0xA4: 0x00, 0xA8: 0x80, 0xB2: 0x00]
        guard command.cla == 0x00 || command.cla == 0x80 else { return Self.status(0x6E00) }
        guard let expectedClass = instructions[command.ins] else { return Self.status(0x6D00) }
        guard command.cla == expectedClass else { return Self.status(0x6E00) }
        switch command.ins {
        case 0xA4: return select(command)
        case 0xA8: return getProcessingOptions(command)
        default: return readRecord(command)
        }
    }

    private mutating func select(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.p1 == 0x04 else { return Self.status(0x6A86) }
        guard command.p2 == 0x00 else { return Self.status(command.p2 == 0x02 ? 0x6A82 : 0x6A86) }
        let name = command.data.revealed()
        if name == Self.directoryName {
            selected = nil
            processing = false
            return Self.success(directoryFCI())
        }
        guard name.count >= 5,
            let index = chip.applications.firstIndex(where: { $0.identifier.starts(with: name) })
        else { return Self.status(0x6A82) }
        selected = index
        processing = false
        return Self.success(applicationFCI(chip.applications[index]))
    }

    private mutating func getProcessingOptions(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.p1 == 0x00, command.p2 == 0x00 else { return Self.status(0x6A86) }
        guard let selected, !processing else { return Self.status(0x6985) }
        let application = chip.applications[selected]
        guard let objects = try? BERTLV.parse(command.data), objects.count == 1,
            objects[0].tag == EMVTag.commandTemplate.tag
        else { return Self.status(0x6A80) }
        let expected = application.processingOptionsDataObjectList?.relatedDataLength ?? 0
        guard objects[0].value.count == expected else { return Self.status(0x6700) }
        processing = true
        let template = BERTLV(
            tag: EMVTag.responseMessageTemplateFormat2.tag,
            children: [
                BERTLV(tag: EMVTag.applicationInterchangeProfile.tag, value: application.interchangeProfile),
                BERTLV(tag: EMVTag.applicationFileLocator.tag, value: application.fileLocator.encoded()),
            ])
        return Self.success(template.encoded())
    }

    private func readRecord(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.p1 != 0, command.p2 & 0x07 == 0x04 else { return Self.status(0x6A86) }
        let sfi = Int(command.p2 >> 3)
        guard let selected else { return Self.status(0x6A82) }
        let application = chip.applications[selected]
        guard application.records.contains(where: { $0.shortFileIdentifier == sfi }) else { return Self.status(0x6A82) }
        guard let record = application.record(Int(command.p1), shortFileIdentifier: sfi) else {
            return Self.status(0x6A83)
        }
        return Self.success(record.template)
    }

    /// `6F [84 name, A5 [BF0C [61 [4F aid, 50 label, 87 priority]]…]]`.
    private func directoryFCI() -> SensitiveBytes {
        let entries = chip.applications.map { application in
            BERTLV(tag: EMVTag.applicationTemplate.tag, children: directoryEntry(application))
        }
        return BERTLV(
            tag: EMVTag.fileControlInformationTemplate.tag,
            children: [
                BERTLV(tag: EMVTag.dedicatedFileName.tag, value: Self.directoryName),
                BERTLV(
                    tag: EMVTag.fciProprietaryTemplate.tag,
                    children: [BERTLV(tag: EMVTag.fciIssuerDiscretionaryData.tag, children: entries)]),
            ]
        ).encoded()
    }

    private func directoryEntry(_ application: EmulatedCard.Application) -> [BERTLV] {
        var objects = [
            BERTLV(tag: EMVTag.applicationIdentifier.tag, value: application.identifier),
            BERTLV(tag: EMVTag.applicationLabel.tag, value: Array(application.label.utf8)),
        ]
        if let priority = application.priority {
            objects.append(BERTLV(tag: EMVTag.applicationPriorityIndicator.tag, value: [priority]))
        }
        return objects
    }

    /// `6F [84 aid, A5 [50 label, 87 priority, 9F38 PDOL]]`.
    private func applicationFCI(_ application: EmulatedCard.Application) -> SensitiveBytes {
        var proprietary = [BERTLV(tag: EMVTag.applicationLabel.tag, value: Array(application.label.utf8))]
        if let priority = application.priority {
            proprietary.append(BERTLV(tag: EMVTag.applicationPriorityIndicator.tag, value: [priority]))
        }
        if let pdol = application.processingOptionsDataObjectList {
            proprietary.append(BERTLV(tag: EMVTag.pdol.tag, value: pdol.encoded()))
        }
        return BERTLV(
            tag: EMVTag.fileControlInformationTemplate.tag,
            children: [
                BERTLV(tag: EMVTag.dedicatedFileName.tag, value: application.identifier),
                BERTLV(tag: EMVTag.fciProprietaryTemplate.tag, children: proprietary),
            ]
        ).encoded()
    }

    private static func status(_ value: UInt16) -> ResponseAPDU {
        ResponseAPDU(statusWord: StatusWord(value))
    }

    private static func success(_ data: SensitiveBytes) -> ResponseAPDU {
        ResponseAPDU(data: data, statusWord: .success)
    }
}
