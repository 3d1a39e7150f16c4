/// Card numbers packed in BCD as EMV stores them: a PAN (`5A`, compressed numeric, padded
/// with `F`) or the start of track 2 equivalent data (`57`, digits up to a `D` separator).
public enum CompressedNumeric {
    /// The decimal digits (ASCII) of `bytes` up to the first `terminator` nibble: `F` for a
    /// PAN, after which only `F` may follow (the padding may be absent); `D` for track 2
    /// equivalent data, which must be there, after which only digits (expiry, service code,
    /// discretionary data) and `F` padding follow. Nil when a nibble breaks that. The digits
    /// go from ``SensitiveBytes`` to ``SensitiveBytes`` without a plain copy.
    public static func digits(of bytes: SensitiveBytes, endingWith terminator: UInt8) -> SensitiveBytes? {
        var digits = SensitiveBytes(capacity: 2 * bytes.count)
        var ended = false
        func take(_ nibble: UInt8) -> Bool {
            if ended { return nibble == 0xF || (terminator == 0xD && nibble <= 9) }
            if nibble <= 9 {
                digits.append(0x30 + nibble)
            } else if nibble == terminator {
                ended = true
            } else {
                return false
            }
            return true
        }
        let valid = bytes.withUnsafeBytes { raw in raw.allSatisfy { take($0 >> 4) && take($0 & 0x0F) } }
        return valid && (ended || terminator == 0xF) ? digits : nil
    }
}
