/// Card numbers packed in BCD as EMV stores them: a PAN (`5A`, compressed numeric, padded
/// with `F`) or the start of track 2 equivalent data (`57`, digits up to a `D` separator).
public enum CompressedNumeric {
    /// The nibble that ends the digits.
    public enum Terminator: UInt8, Sendable {
        /// `F` padding of a PAN (`5A`): it may be absent, and only `F` may follow it.
        case padding = 0xF
        /// The `D` field separator of track 2 equivalent data (`57`): it must be there, and
        /// digits (expiry, service code, discretionary data) and `F` padding follow it.
        case fieldSeparator = 0xD
    }

    /// The decimal digits (ASCII) of `bytes` up to `terminator`, as ``Terminator`` says;
    /// nil when a nibble breaks that. The digits go from ``SensitiveBytes`` to
    /// ``SensitiveBytes`` without a plain copy.
    public static func digits(of bytes: SensitiveBytes, endingWith terminator: Terminator) -> SensitiveBytes? {
        var digits = SensitiveBytes(capacity: 2 * bytes.count)
        var ended = false
        func take(_ nibble: UInt8) -> Bool {
            if ended { return nibble == 0xF || (terminator == .fieldSeparator && nibble <= 9) }
            if nibble <= 9 {
                digits.append(0x30 + nibble)
            } else if nibble == terminator.rawValue {
                ended = true
            } else {
                return false
            }
            return true
        }
        let valid = bytes.withUnsafeBytes { raw in raw.allSatisfy { take($0 >> 4) && take($0 & 0x0F) } }
        return valid && (ended || terminator == .padding) ? digits : nil
    }
}
