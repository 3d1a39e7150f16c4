/// The data element formats of EMV Book 3 §4.3, as far as they decide padding and truncation.
public enum EMVDataFormat: Sendable, Hashable {
    /// `n`: BCD, right-justified; padded with leading zero nibbles.
    case numeric
    /// `cn`: BCD, left-justified; padded with trailing `F` nibbles.
    case compressedNumeric
    /// `a`, `an`, `ans`: characters, left-justified; padded with trailing zero bytes in a DOL.
    case alphanumeric
    /// `b` and templates: binary.
    case binary
}
