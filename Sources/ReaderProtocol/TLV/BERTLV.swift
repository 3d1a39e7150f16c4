/// One BER-TLV data object as EMV uses it (EMV Book 3 Annex B): a tag and either a
/// primitive value or, for a constructed tag, a list of nested objects.
///
/// Values are ``SensitiveBytes``: tags such as `5A` and `57` carry card data. Descriptions
/// show values as ``EMVDataRenderer`` does (card data masked by tag); `dump()` shows tags
/// and lengths, never values.
public struct BERTLV: Sendable, Hashable {
    /// The nesting limit `parse(_:maximumDepth:)` applies by default.
    public static let defaultMaximumDepth = 32

    /// The tag.
    public let tag: BERTag
    /// The value: bytes, or nested objects.
    public let content: Content

    /// What a data object holds.
    public enum Content: Sendable, Hashable {
        /// The value bytes of a primitive object.
        case primitive(SensitiveBytes)
        /// The objects nested in a constructed object.
        case constructed([BERTLV])
    }

    /// A primitive object. The tag's constructed bit is not checked: an object built with a
    /// constructed tag and raw bytes encodes those bytes as its value.
    public init(tag: BERTag, value: SensitiveBytes) {
        self.tag = tag
        content = .primitive(value)
    }

    /// A primitive object from plain bytes.
    public init(tag: BERTag, value: [UInt8]) {
        self.init(tag: tag, value: SensitiveBytes(value))
    }

    /// A constructed object holding `children`.
    public init(tag: BERTag, children: [BERTLV]) {
        self.tag = tag
        content = .constructed(children)
    }

    /// The value bytes; for a constructed object, the encoding of its children (which may differ
    /// from the bytes parsed if those held `00` padding or non-minimal lengths).
    public var value: SensitiveBytes {
        switch content {
        case .primitive(let bytes): bytes
        case .constructed(let children): children.encoded()
        }
    }

    /// The nested objects; empty for a primitive object.
    public var children: [BERTLV] {
        switch content {
        case .primitive: []
        case .constructed(let children): children
        }
    }

    /// Tag, minimal length field and value.
    public func encoded() -> SensitiveBytes {
        var bytes = SensitiveBytes()
        append(to: &bytes)
        return bytes
    }

    func append(to bytes: inout SensitiveBytes) {
        let value = value
        bytes.append(contentsOf: tag.bytes)
        BERLength.append(value.count, to: &bytes)
        bytes.append(contentsOf: value)
    }

    /// Parses a sequence of data objects.
    ///
    /// `00` bytes before, between and after objects are skipped (EMV Book 3 Annex B: they may
    /// be left by erased objects). `FF` is not skipped: EMV names only `00` as filler, so `FF`
    /// starts a tag (private class, constructed, multi-byte), as ISO/IEC 8825-1 reads it.
    /// Constructed objects are parsed recursively, at most `maximumDepth` levels deep.
    public static func parse(_ bytes: SensitiveBytes, maximumDepth: Int = defaultMaximumDepth) throws(TLVError) -> [BERTLV] {
        try bytes.withUnsafeBytes { (buffer) throws(TLVError) in
            try parse(buffer, range: 0..<buffer.count, depth: 0, maximumDepth: maximumDepth)
        }
    }

    /// Parses a sequence of data objects from plain bytes.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(TLVError) -> [BERTLV] {
        try parse(SensitiveBytes(bytes), maximumDepth: maximumDepth)
    }

    private static func parse(
        _ buffer: UnsafeRawBufferPointer, range: Range<Int>, depth: Int, maximumDepth: Int
    ) throws(TLVError) -> [BERTLV] {
        let window = UnsafeRawBufferPointer(rebasing: buffer[..<range.upperBound])
        var objects: [BERTLV] = []
        var position = range.lowerBound
        while position < range.upperBound {
            if window[position] == 0x00 {
                position += 1
                continue
            }
            let start = position
            let tag: BERTag
            (tag, position) = try BERTag.read(window, at: position)
            let length: Int
            (length, position) = try BERLength.read(window, at: position)
            let available = range.upperBound - position
            guard length <= available else {
                throw .truncatedValue(offset: position, declared: length, available: available)
            }
            let valueRange = position..<position + length
            position = valueRange.upperBound
            guard tag.isConstructed else {
                objects.append(BERTLV(tag: tag, value: SensitiveBytes(window[valueRange])))
                continue
            }
            guard depth < maximumDepth else { throw .nestingTooDeep(offset: start, limit: maximumDepth) }
            do {
                let children = try parse(buffer, range: valueRange, depth: depth + 1, maximumDepth: maximumDepth)
                objects.append(BERTLV(tag: tag, children: children))
            } catch {
                // Name the innermost constructed object whose value fails; its ancestors pass it on.
                if case .malformedConstructedValue = error.storage { throw error }
                throw .malformedConstructedValue(tag: tag, offset: start, reason: error)
            }
        }
        return objects
    }

    /// The first object with `tag` among this object's children and their descendants
    /// (depth first, in order).
    public func firstDescendant(withTag tag: BERTag) -> BERTLV? {
        children.firstDescendant(withTag: tag)
    }
}

extension Sequence<BERTLV> {
    /// The first object at this level with `tag`.
    public func first(withTag tag: BERTag) -> BERTLV? {
        first { $0.tag == tag }
    }

    /// The first object with `tag` at this level or nested in any object, depth first, in order.
    public func firstDescendant(withTag tag: BERTag) -> BERTLV? {
        for object in self {
            if object.tag == tag { return object }
            if let found = object.children.firstDescendant(withTag: tag) { return found }
        }
        return nil
    }

    /// The objects encoded one after another.
    public func encoded() -> SensitiveBytes {
        var bytes = SensitiveBytes()
        for object in self { object.append(to: &bytes) }
        return bytes
    }
}

extension BERTLV: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Tag, name and value as ``EMVDataRenderer`` shows them, card data masked by tag: e.g.
    /// `50 Application Label: VISA CREDIT`, `5A Application Primary Account Number (PAN):
    /// 411111******1111 (masked)`, `5F20 Cardholder Name: 8 bytes, hidden`; a template as its
    /// tag, name and number of objects.
    public var description: String {
        switch content {
        case .constructed(let children):
            let name = EMVTag.lookup(tag).map { " \($0.name)" } ?? ""
            return "\(tag)\(name), \(children.count) object\(children.count == 1 ? "" : "s")"
        case .primitive:
            return EMVDataRenderer().describe([self]).first?.lines().first ?? "\(tag)"
        }
    }

    /// ``description`` labelled with the type, e.g. `BERTLV(5A Application Primary Account
    /// Number (PAN): 411111******1111 (masked))`: card data masked as there.
    public var debugDescription: String { "BERTLV(\(description))" }

    /// The tag and either the value as ``SensitiveBytes`` (which reflects its length only) or
    /// the children, so that `dump` and debuggers never show a value.
    public var customMirror: Mirror {
        switch content {
        case .primitive(let bytes):
            Mirror(self, children: ["tag": tag.description, "value": bytes], displayStyle: .struct)
        case .constructed(let children):
            Mirror(self, children: ["tag": tag.description, "children": children], displayStyle: .struct)
        }
    }
}
