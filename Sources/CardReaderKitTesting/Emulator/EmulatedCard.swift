import ReaderProtocol

/// A payment card the emulated reader can read: a magnetic stripe, a chip, or both.
///
/// Built-in profiles (``visaTest``, ``mastercardTest``, ``visaSwipeOnly``) need no files;
/// `Fixtures/cards/*.json` mirror them and ``init(contentsOf:)`` loads more. Track and
/// record contents are `SensitiveBytes`: descriptions show only the card's name and shape.
public struct EmulatedCard: Sendable, Hashable {
    /// A short identifier, e.g. `visa-test`.
    public var name: String
    /// The stripe's tracks as the reader sends them (sentinels, no LRC), or `nil` for a card
    /// without a stripe. A swipe that reads no track answers `03`.
    public var magneticStripe: MagneticStripeData?
    /// The chip, or `nil` for a stripe-only card (which answers no ATR in the chip slot: `09`).
    public var chip: Chip?

    /// A card named `name` with a stripe, a chip, both, or neither (a blank card).
    public init(name: String, magneticStripe: MagneticStripeData? = nil, chip: Chip? = nil) {
        self.name = name
        self.magneticStripe = magneticStripe
        self.chip = chip
    }

    /// A contact EMV chip speaking T=0.
    public struct Chip: Sendable, Hashable {
        /// The Answer To Reset ICC POWER ON returns. It must parse as an `AnswerToReset`;
        /// if it does not, POWER ON answers `09` (the card did not answer).
        public var answerToReset: [UInt8]
        /// The payment applications, listed in the PPSE (`2PAY.SYS.DDF01`) in this order.
        public var applications: [Application]

        /// A chip answering `answerToReset` to POWER ON and offering `applications`.
        public init(answerToReset: [UInt8], applications: [Application]) {
            self.answerToReset = answerToReset
            self.applications = applications
        }
    }

    /// One EMV application (EMV Book 3).
    public struct Application: Sendable, Hashable {
        /// The AID (`4F`, `84`), 5 to 16 bytes.
        public var identifier: [UInt8]
        /// The application label (`50`), printable ASCII.
        public var label: String
        /// The application priority indicator (`87`), if any.
        public var priority: UInt8?
        /// The PDOL (`9F38`) in the FCI, if any: GET PROCESSING OPTIONS must then carry
        /// exactly its related-data length in tag `83`.
        public var processingOptionsDataObjectList: DataObjectList?
        /// The Application Interchange Profile (`82`), 2 bytes.
        public var interchangeProfile: [UInt8]
        /// The records READ RECORD returns; the AFL (`94`) is derived from them.
        public var records: [Record]

        /// An application as given; nothing is checked until the emulated reader serves it.
        public init(
            identifier: [UInt8], label: String, priority: UInt8? = nil,
            processingOptionsDataObjectList: DataObjectList? = nil, interchangeProfile: [UInt8], records: [Record]
        ) {
            self.identifier = identifier
            self.label = label
            self.priority = priority
            self.processingOptionsDataObjectList = processingOptionsDataObjectList
            self.interchangeProfile = interchangeProfile
            self.records = records
        }

        /// The AFL: one entry per run of consecutive records in a file, files in ascending
        /// SFI order, no records for offline data authentication (the emulator signs nothing).
        /// Records outside SFI 1…30 or numbers 1…255 (which card files reject) are left out.
        public var fileLocator: ApplicationFileLocator {
            var entries: [ApplicationFileLocator.Entry] = []
            func append(_ sfi: Int, _ first: Int, _ last: Int) {
                if let entry = try? ApplicationFileLocator.Entry(
                    shortFileIdentifier: sfi, firstRecord: first, lastRecord: last, offlineAuthenticationRecordCount: 0)
                {
                    entries.append(entry)
                }
            }
            let files = Dictionary(grouping: records, by: \.shortFileIdentifier)
            for (sfi, fileRecords) in files.sorted(by: { $0.key < $1.key }) {
                let numbers = Set(fileRecords.map(\.number)).sorted()
                guard var first = numbers.first else { continue }
                var last = first
                for number in numbers.dropFirst() {
                    if number == last + 1 {
                        last = number
                    } else {
                        append(sfi, first, last)
                        first = number
                        last = number
                    }
                }
                append(sfi, first, last)
            }
            return ApplicationFileLocator(entries: entries)
        }

        /// The record `number` of file `sfi`, if the application has it.
        func record(_ number: Int, shortFileIdentifier sfi: Int) -> Record? {
            records.first { $0.shortFileIdentifier == sfi && $0.number == number }
        }
    }

    /// One record of a linear file: READ RECORD returns its objects in a `70` template.
    public struct Record: Sendable, Hashable {
        /// The short file identifier, 1…30.
        public var shortFileIdentifier: Int
        /// The record number, 1…255.
        public var number: Int
        /// The data objects inside the `70` template, in order.
        public var objects: [BERTLV]

        /// Record `number` of the file `shortFileIdentifier`, holding `objects`.
        public init(shortFileIdentifier: Int, number: Int, objects: [BERTLV]) {
            self.shortFileIdentifier = shortFileIdentifier
            self.number = number
            self.objects = objects
        }

        /// The READ RECORD response data: the `70` template.
        public var template: SensitiveBytes {
            BERTLV(tag: EMVTag.readRecordResponseTemplate.tag, children: objects).encoded()
        }
    }
}

extension EmulatedCard: CustomStringConvertible, CustomDebugStringConvertible {
    /// The name and what the card carries, never card data: `visa-test (stripe, chip: 1 application)`.
    public var description: String {
        var parts: [String] = []
        if magneticStripe != nil { parts.append("stripe") }
        if let chip {
            parts.append("chip: \(chip.applications.count) application\(chip.applications.count == 1 ? "" : "s")")
        }
        return "\(name) (\(parts.isEmpty ? "blank" : parts.joined(separator: ", ")))"
    }

    /// ``description`` labelled with the type, e.g. `EmulatedCard(visa-swipe-only (stripe))`; never card data.
    public var debugDescription: String { "EmulatedCard(\(description))" }
}
