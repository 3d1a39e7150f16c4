/// One data object as a person reads it: what ``EMVDataRenderer`` makes of a ``BERTLV``.
///
/// It is what `readerctl --json` prints for APDU data (field names are the JSON keys), and
/// holds only what the renderer's policy lets through: a masked or hidden value has no
/// ``hex`` and at most a masked ``value``.
public struct EMVDataElementDescription: Sendable, Hashable, Codable {
    /// How a value was withheld.
    public enum Redaction: String, Sendable, Hashable, Codable {
        /// Part of the value is shown: a card number's first six and last four digits, a
        /// track's card number, expiry and service code.
        case masked
        /// Only the length is shown.
        case hidden
    }

    /// The tag in hex, e.g. `9F26`.
    public var tag: String
    /// The data element's name, when the catalogue knows the tag.
    public var name: String?
    /// The value's length in bytes.
    public var length: Int
    /// The value decoded for a person, e.g. `VISA CREDIT`, `2025-12-31`, `840 (US, United States)`.
    /// Absent for templates and for hidden values.
    public var value: String?
    /// What the value says, one line each: bits set by meaning, CVM rules, AFL entries, DOL entries.
    public var details: [String]?
    /// The value's bytes in hex, when the value is shown in full.
    public var hex: String?
    /// Set when the value was masked or hidden.
    public var redaction: Redaction?
    /// For a template, the objects inside it; for data sent as a data object list asked
    /// (GET PROCESSING OPTIONS' command template), the values it holds, by tag.
    public var children: [EMVDataElementDescription]?

    /// A description with only its tag and length; the renderer fills in the rest.
    public init(tag: String, name: String? = nil, length: Int) {
        self.tag = tag
        self.name = name
        self.length = length
    }

    /// This object and those inside it as indented lines: tag, name and value, then details
    /// below, e.g. `95 Terminal Verification Results: 80 00 00 00 00` and
    /// `   - Offline data authentication was not performed`.
    public func lines(indent: String = "") -> [String] {
        var head = indent + tag + (name.map { " " + $0 } ?? "")
        switch (value, redaction) {
        case (let value?, .masked?): head += ": \(value) (masked)"
        case (let value?, _): head += ": \(value)"
        case (nil, .hidden?): head += ": \(length) bytes, hidden"
        case (nil, _) where children == nil: head += ": empty"
        case (nil, _): break
        }
        var lines = [head]
        lines += (details ?? []).map { indent + "   - " + $0 }
        for child in children ?? [] { lines += child.lines(indent: indent + "   ") }
        return lines
    }
}

extension Sequence<EMVDataElementDescription> {
    /// The objects as indented lines, one tree after another.
    public func lines(indent: String = "") -> [String] {
        flatMap { $0.lines(indent: indent) }
    }
}
