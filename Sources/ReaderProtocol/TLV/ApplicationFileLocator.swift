/// The Application File Locator (AFL, tag `94`; EMV Book 3 §10.2): which records of which
/// files the terminal reads with READ RECORD, and which of them feed offline data authentication.
///
/// Each 4-byte entry: byte 1 = SFI in bits 8–4 (bits 3–1 are RFU and ignored), byte 2 = first
/// record, byte 3 = last record, byte 4 = number of records, from the first, that take part
/// in offline data authentication.
public struct ApplicationFileLocator: Sendable, Hashable {
    /// One file's range of records.
    public struct Entry: Sendable, Hashable {
        /// The short file identifier, 1…30.
        public let shortFileIdentifier: Int
        /// The first record to read, at least 1.
        public let firstRecord: Int
        /// The last record to read, at least ``firstRecord`` and at most 255.
        public let lastRecord: Int
        /// How many records, from ``firstRecord`` on, take part in offline data authentication.
        public let offlineAuthenticationRecordCount: Int

        /// Validates the ranges EMV Book 3 §10.2 requires.
        public init(
            shortFileIdentifier: Int, firstRecord: Int, lastRecord: Int, offlineAuthenticationRecordCount: Int
        ) throws(ApplicationFileLocatorError.EntryProblem) {
            guard (1...30).contains(shortFileIdentifier) else { throw .shortFileIdentifierOutOfRange(shortFileIdentifier) }
            guard (1...255).contains(firstRecord) else { throw .firstRecordOutOfRange(firstRecord) }
            guard (firstRecord...255).contains(lastRecord) else {
                throw .lastRecordOutOfRange(first: firstRecord, last: lastRecord)
            }
            guard (0...lastRecord - firstRecord + 1).contains(offlineAuthenticationRecordCount) else {
                throw .tooManyOfflineAuthenticationRecords(
                    count: offlineAuthenticationRecordCount, recordsInEntry: lastRecord - firstRecord + 1)
            }
            self.shortFileIdentifier = shortFileIdentifier
            self.firstRecord = firstRecord
            self.lastRecord = lastRecord
            self.offlineAuthenticationRecordCount = offlineAuthenticationRecordCount
        }

        /// The record numbers to read.
        public var records: ClosedRange<Int> { firstRecord...lastRecord }
    }

    /// The entries, in the order the card lists them (the order to read in).
    public let entries: [Entry]

    /// An AFL listing `entries`, to be read in that order.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses the value of tag `94`.
    public init(parsing bytes: [UInt8]) throws(ApplicationFileLocatorError) {
        guard bytes.count % 4 == 0 else { throw .lengthNotMultipleOfFour(bytes.count) }
        var entries: [Entry] = []
        for offset in stride(from: 0, to: bytes.count, by: 4) {
            do {
                entries.append(
                    try Entry(
                        shortFileIdentifier: Int(bytes[offset] >> 3), firstRecord: Int(bytes[offset + 1]),
                        lastRecord: Int(bytes[offset + 2]), offlineAuthenticationRecordCount: Int(bytes[offset + 3])))
            } catch {
                throw .invalidEntry(index: offset / 4, offset: offset, problem: error)
            }
        }
        self.entries = entries
    }

    /// The value of tag `94`, RFU bits zero.
    public func encoded() -> [UInt8] {
        entries.flatMap {
            [UInt8($0.shortFileIdentifier << 3), UInt8($0.firstRecord), UInt8($0.lastRecord),
             UInt8($0.offlineAuthenticationRecordCount)]
        }
    }
}

/// Why bytes are not a valid Application File Locator.
public struct ApplicationFileLocatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What is wrong and where, e.g. `AFL entry 1 at offset 4: first record 0 is outside 1…255`.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// The AFL has this many bytes, not a multiple of 4.
    public static func lengthNotMultipleOfFour(_ count: Int) -> Self {
        Self(.lengthNotMultipleOfFour(count))
    }

    /// The entry with this index (from 0), starting at this byte offset, is invalid.
    public static func invalidEntry(index: Int, offset: Int, problem: EntryProblem) -> Self {
        Self(.invalidEntry(index: index, offset: offset, problem: problem))
    }

    /// What is wrong with one AFL entry.
    public struct EntryProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
        public var code: Code { storage.code }

        /// The value out of range and its allowed range, e.g. `SFI 31 is outside 1…30`.
        public var description: String { storage.description }

        let storage: Storage

        init(_ storage: Storage) {
            self.storage = storage
        }

        /// The SFI is 0 or 31.
        public static func shortFileIdentifierOutOfRange(_ sfi: Int) -> Self {
            Self(.shortFileIdentifierOutOfRange(sfi))
        }

        /// The first record is 0 (or above 255).
        public static func firstRecordOutOfRange(_ first: Int) -> Self {
            Self(.firstRecordOutOfRange(first))
        }

        /// The last record is before the first (or above 255).
        public static func lastRecordOutOfRange(first: Int, last: Int) -> Self {
            Self(.lastRecordOutOfRange(first: first, last: last))
        }

        /// More records take part in offline data authentication than the entry names.
        public static func tooManyOfflineAuthenticationRecords(count: Int, recordsInEntry: Int) -> Self {
            Self(.tooManyOfflineAuthenticationRecords(count: count, recordsInEntry: recordsInEntry))
        }

        /// What is wrong, as a stable identifier (`short-file-identifier-out-of-range`).
        public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            /// The SFI is 0 or 31.
            public static let shortFileIdentifierOutOfRange = Self(rawValue: "short-file-identifier-out-of-range")

            /// The first record is 0 (or above 255).
            public static let firstRecordOutOfRange = Self(rawValue: "first-record-out-of-range")

            /// The last record is before the first (or above 255).
            public static let lastRecordOutOfRange = Self(rawValue: "last-record-out-of-range")

            /// More records take part in offline data authentication than the entry names.
            public static let tooManyOfflineAuthenticationRecords = Self(rawValue: "too-many-offline-authentication-records")
        }

        enum Storage: Sendable, Hashable {
            case shortFileIdentifierOutOfRange(Int)
            case firstRecordOutOfRange(Int)
            case lastRecordOutOfRange(first: Int, last: Int)
            case tooManyOfflineAuthenticationRecords(count: Int, recordsInEntry: Int)

            var code: Code {
                switch self {
                case .shortFileIdentifierOutOfRange: .shortFileIdentifierOutOfRange
                case .firstRecordOutOfRange: .firstRecordOutOfRange
                case .lastRecordOutOfRange: .lastRecordOutOfRange
                case .tooManyOfflineAuthenticationRecords: .tooManyOfflineAuthenticationRecords
                }
            }

            var description: String {
                switch self {
                case .shortFileIdentifierOutOfRange(let sfi):
                    "SFI \(sfi) is outside 1…30"
                case .firstRecordOutOfRange(let first):
                    "first record \(first) is outside 1…255"
                case .lastRecordOutOfRange(let first, let last):
                    "last record \(last) is outside \(first)…255"
                case .tooManyOfflineAuthenticationRecords(let count, let records):
                    "\(count) records for offline data authentication, but the entry names only \(records)"
                }
            }
        }
    }

    /// What is wrong, as a stable identifier (`length-not-multiple-of-four`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The AFL has this many bytes, not a multiple of 4.
        public static let lengthNotMultipleOfFour = Self(rawValue: "length-not-multiple-of-four")

        /// The entry with this index (from 0), starting at this byte offset, is invalid.
        public static let invalidEntry = Self(rawValue: "invalid-entry")
    }

    enum Storage: Sendable, Hashable {
        case lengthNotMultipleOfFour(Int)
        case invalidEntry(index: Int, offset: Int, problem: EntryProblem)

        var code: Code {
            switch self {
            case .lengthNotMultipleOfFour: .lengthNotMultipleOfFour
            case .invalidEntry: .invalidEntry
            }
        }

        var description: String {
            switch self {
            case .lengthNotMultipleOfFour(let count):
                "AFL has \(count) bytes, not a multiple of 4"
            case .invalidEntry(let index, let offset, let problem):
                "AFL entry \(index) at offset \(offset): \(problem)"
            }
        }
    }
}
