/// The CRC-16 of any range of a byte stream in constant time, from the running registers
/// at the range's two ends (the idea of zlib's `crc32_combine`).
///
/// A CRC register is linear over GF(2): feeding a message `M` of `n` bytes to a register
/// that holds `R` leaves `R·x⁸ⁿ ⊕ f(M)`, where `f(M)` is what `M` leaves in a zero register.
/// So with `Z(i)`, the register after feeding bytes `0..<i` from any fixed origin, the CRC of
/// `a..<b` with initial value `I` is `Z(b) ⊕ (Z(a) ⊕ I)·x⁸⁽ᵇ⁻ᵃ⁾ mod P`. Reflected variants
/// hold the same arithmetic bit-reversed.
///
/// The frame decoder feeds its buffer through ``feed(_:at:continuing:checkpoints:)``, which
/// runs the CRC sliced by 8 and keeps `Z` at every eighth position (a checkpoint); `Z`
/// anywhere else is at most seven byte steps from one (``advance(_:over:)``).
/// Judging a candidate frame so costs the same whatever its length, and a stream of false
/// starts decodes in linear time.
struct CRC16RangeChecksum: Sendable {
    /// Positions `0, 8, 16, …` of the fed bytes have checkpoints: `checkpoints[k]` is `Z(8k)`.
    static let checkpointInterval = 8

    private let tables: CRC16Tables
    private let polynomial: UInt16
    private let initialValue: UInt16
    private let reflected: Bool
    private let finalXOR: UInt16
    /// `x⁸ⁿ mod P` for every `n` up to the longest range asked for.
    private let powers: [UInt16]

    init(_ variant: CRC16.Variant, longestRange: Int) {
        tables = CRC16(variant).tables
        polynomial = variant.polynomial
        initialValue = variant.initialValue
        reflected = variant.reflected
        finalXOR = variant.finalXOR
        var powers: [UInt16] = [1]
        powers.reserveCapacity(longestRange + 1)
        for _ in 0..<max(longestRange, 0) {
            powers.append(Self.multiply(powers[powers.count - 1], 0x0100, polynomial: polynomial))
        }
        self.powers = powers
    }

    /// Feeds `bytes`, which sit at `position` of the stream, to `register` (`Z(position)`),
    /// writing the checkpoint of every multiple of eight in `position + 1 ... position +
    /// bytes.count`; returns `Z(position + bytes.count)`.
    func feed(
        _ bytes: UnsafeBufferPointer<UInt8>, at position: Int, continuing register: UInt16,
        checkpoints: UnsafeMutablePointer<UInt16>
    ) -> UInt16 {
        let interval = Self.checkpointInterval
        let head = min(bytes.count, (interval - position % interval) % interval)
        var crc = register
        for byte in bytes[..<head] { crc = tables.update(crc, with: byte) }
        var checkpoint = (position + head) / interval
        if head > 0, (position + head) % interval == 0 { checkpoints[checkpoint] = crc }
        return tables.update(crc, with: UnsafeBufferPointer(rebasing: bytes[head...])) { crc in
            checkpoint += 1
            checkpoints[checkpoint] = crc
        }
    }

    /// The register after feeding `bytes` to `register`: `Z(b)` from `Z(a)` and bytes
    /// `a..<b`, for the few bytes between a checkpoint and a position.
    func advance(_ register: UInt16, over bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        tables.update(register, with: bytes)
    }

    /// The CRC (final XOR applied) of bytes `a..<b` given `Z(a)` and `Z(b)`. `b - a` must not
    /// exceed `longestRange`.
    func checksum(registerAtStart start: UInt16, registerAtEnd end: UInt16, length: Int) -> UInt16 {
        let shifted: UInt16
        if reflected {
            shifted = Self.multiply((start ^ initialValue).bitReversed, powers[length], polynomial: polynomial).bitReversed
        } else {
            shifted = Self.multiply(start ^ initialValue, powers[length], polynomial: polynomial)
        }
        return end ^ shifted ^ finalXOR
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
