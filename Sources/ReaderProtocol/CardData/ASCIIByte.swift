/// Character classes of the bytes a magnetic stripe carries.
extension UInt8 {
    /// Whether this is an ASCII `0`–`9`.
    var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

    /// The value of an ASCII digit (`0`–`9`), or `nil` for any other byte.
    var asciiDigitValue: Int? { isASCIIDigit ? Int(self - UInt8(ascii: "0")) : nil }

    /// Track 1 data characters (ISO/IEC 7813, 6-bit set: ASCII 0x20–0x5F) other than the
    /// start sentinel `%` and end sentinel `?`.
    var isTrack1DataCharacter: Bool {
        (0x20...0x5F).contains(self) && self != UInt8(ascii: "%") && self != UInt8(ascii: "?")
    }

    /// Track 1 data characters other than the field separator `^`.
    var isTrack1NameCharacter: Bool { isTrack1DataCharacter && self != UInt8(ascii: "^") }

    /// Track 2 and 3 data characters (ISO/IEC 7813 and ISO/IEC 4909, 4-bit set: ASCII
    /// 0x30–0x3F) other than the start sentinel `;` and end sentinel `?`.
    var isTrack2DataCharacter: Bool {
        (0x30...0x3F).contains(self) && self != UInt8(ascii: ";") && self != UInt8(ascii: "?")
    }
}
