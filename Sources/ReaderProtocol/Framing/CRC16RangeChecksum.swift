/// The CRC-16 of any range of a byte stream in constant time, from the running registers
/// at the range's two ends (the idea of zlib's `crc32_combine`).
///
/// A CRC register is linear over GF(2): feeding a message `M` of `n` bytes to a register
/// that holds `R` leaves `R·x⁸ⁿ ⊕ f(M)`, where `f(M)` is what `M` leaves in a zero register.
/// So with `Z(i)`, the register after feeding bytes `0..<i` from zero, the CRC of
/// `a..<b` with initial value `I` is `Z(b) ⊕ (Z(a) ⊕ I)·x⁸⁽ᵇ⁻ᵃ⁾ mod P`. Reflected variants
/// hold the same arithmetic bit-reversed.
///
/// The frame decoder keeps `Z` beside its buffer, so judging a candidate frame costs the
/// same whatever its length, and a stream of false starts decodes in linear time.
struct CRC16RangeChecksum: Sendable {
    let crc: CRC16
    /// `x⁸ⁿ mod P` for every `n` up to the longest range asked for.
    private let powers: [UInt16]

    init(_ variant: CRC16.Variant, longestRange: Int) {
        crc = CRC16(variant)
        var powers: [UInt16] = [1]
        powers.reserveCapacity(longestRange + 1)
        for _ in 0..<max(longestRange, 0) {
            powers.append(Self.multiply(powers[powers.count - 1], 0x0100, polynomial: variant.polynomial))
        }
        self.powers = powers
    }

    /// Appends to `registers` the zero-start register after each of `bytes`, continuing from
    /// its last entry (or from zero).
    func appendRegisters(over bytes: UnsafeBufferPointer<UInt8>, to registers: inout [UInt16]) {
        _ = crc.update(registers.last ?? 0, with: bytes) { registers.append($0) }
    }

    /// The CRC (final XOR applied) of bytes `a..<b` given `Z(a)` and `Z(b)`, the zero-start
    /// registers before byte `a` and before byte `b`. `b - a` must not exceed `longestRange`.
    func checksum(registerAtStart start: UInt16, registerAtEnd end: UInt16, length: Int) -> UInt16 {
        let variant = crc.variant
        let shifted: UInt16
        if variant.reflected {
            shifted = Self.multiply(
                (start ^ variant.initialValue).bitReversed, powers[length], polynomial: variant.polynomial
            ).bitReversed
        } else {
            shifted = Self.multiply(start ^ variant.initialValue, powers[length], polynomial: variant.polynomial)
        }
        return crc.finalize(end ^ shifted)
    }

    /// `a·b mod P` for polynomials of degree below 16 (P = x¹⁶ + `polynomial`), MSB first.
    private static func multiply(_ a: UInt16, _ b: UInt16, polynomial: UInt16) -> UInt16 {
        var product: UInt16 = 0
        var bit: UInt16 = 0x8000
        while bit != 0 {
            product = product & 0x8000 != 0 ? (product << 1) ^ polynomial : product << 1
            if b & bit != 0 { product ^= a }
            bit >>= 1
        }
        return product
    }
}
