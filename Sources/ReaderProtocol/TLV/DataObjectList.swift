/// A data object list (DOL, EMV Book 3 §5.4), e.g. the PDOL (`9F38`) or CDOL1 (`8C`): tags
/// with the lengths the card wants, no values. The terminal answers with the values
/// concatenated in order (``relatedData(lookup:format:)``).
public struct DataObjectList: Sendable, Hashable {
    /// One requested data object.
    public struct Entry: Sendable, Hashable {
        /// The data object's tag.
        public let tag: BERTag
        /// The number of bytes the card wants for it.
        public let length: Int

        /// A negative `length` is stored as 0.
        public init(tag: BERTag, length: Int) {
            self.tag = tag
            self.length = max(0, length)
        }
    }

    /// The requested objects, in order.
    public let entries: [Entry]

    /// A DOL requesting `entries`, in that order.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses a DOL: tag and length field, repeated. Length fields follow the BER-TLV rules
    /// (EMV uses one byte; `81`–`83` are read too).
    public init(parsing bytes: [UInt8]) throws(TLVError) {
        var entries: [Entry] = []
        try SensitiveBytes(bytes).withUnsafeBytes { (buffer) throws(TLVError) in
            var position = 0
            while position < buffer.count {
                let tag: BERTag
                (tag, position) = try BERTag.read(buffer, at: position)
                let length: Int
                (length, position) = try BERLength.read(buffer, at: position)
                entries.append(Entry(tag: tag, length: length))
            }
        }
        self.entries = entries
    }

    /// The DOL's own bytes: tags and minimal length fields.
    public func encoded() -> [UInt8] {
        var bytes = SensitiveBytes()
        for entry in entries {
            bytes.append(contentsOf: entry.tag.bytes)
            BERLength.append(entry.length, to: &bytes)
        }
        return bytes.revealed()
    }

    /// The total length of the related data: the sum of the entries' lengths.
    public var relatedDataLength: Int {
        entries.reduce(0) { $0 + $1.length }
    }

    /// The related data (e.g. PDOL related data for GET PROCESSING OPTIONS): each entry's
    /// value from `lookup`, fitted to the entry's length as EMV Book 3 §5.4 prescribes.
    ///
    /// - A tag `lookup` has no value for, or a constructed tag, gives that many `00` bytes.
    /// - Too long: numeric (`n`) values lose their leftmost bytes, all others their rightmost.
    /// - Too short: numeric values get leading `00` bytes, compressed numeric (`cn`) trailing
    ///   `FF` bytes, all others trailing `00` bytes.
    ///
    /// `format` gives each tag's format; by default ``EMVTag``'s catalogue, with tags
    /// outside it treated as binary.
    public func relatedData(
        lookup: (BERTag) -> [UInt8]?,
        format: (BERTag) -> EMVDataFormat = { EMVTag.lookup($0)?.format ?? .binary }
    ) -> SensitiveBytes {
        var data = SensitiveBytes(capacity: relatedDataLength)
        for entry in entries {
            let length = entry.length
            guard !entry.tag.isConstructed, let value = lookup(entry.tag) else {
                data.append(contentsOf: repeatElement(0, count: length))
                continue
            }
            let padding = max(0, length - value.count)
            switch format(entry.tag) {
            case .numeric:
                data.append(contentsOf: repeatElement(0, count: padding))
                data.append(contentsOf: value.suffix(length))
            case .compressedNumeric:
                data.append(contentsOf: value.prefix(length))
                data.append(contentsOf: repeatElement(0xFF, count: padding))
            case .alphanumeric, .binary:
                data.append(contentsOf: value.prefix(length))
                data.append(contentsOf: repeatElement(0, count: padding))
            }
        }
        return data
    }
}

extension DataObjectList: CustomStringConvertible {
    /// E.g. `9F02 06, 9F37 04` (tags and lengths; a DOL holds no values).
    public var description: String {
        entries.map { "\($0.tag) \(UInt8(truncatingIfNeeded: $0.length).hexByte)" }.joined(separator: ", ")
    }
}
