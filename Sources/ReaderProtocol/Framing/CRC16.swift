/// A table-driven CRC-16 over the Rocksoft model parameters.
///
/// The VPOS3356 reader frames use ``Variant/ccittFalse``; readers of other vendors
/// use ``Variant/xmodem`` or ``Variant/kermit``, and YModem firmware blocks use
/// ``Variant/xmodem``.
public struct CRC16: Sendable {
    /// The parameters of one CRC-16 algorithm in the Rocksoft model.
    public struct Variant: Sendable, Hashable {
        /// The generator polynomial, without its top bit, in normal (MSB-first) form.
        public var polynomial: UInt16
        /// The register's value before the first byte.
        public var initialValue: UInt16
        /// Whether input bytes and the result are bit-reflected.
        public var reflected: Bool
        /// XORed into the register after the last byte.
        public var finalXOR: UInt16
        /// The catalogue name, for diagnostics.
        public var name: String

        /// A variant named `name` with the Rocksoft model's parameters.
        public init(name: String, polynomial: UInt16, initialValue: UInt16, reflected: Bool, finalXOR: UInt16) {
            self.name = name
            self.polynomial = polynomial
            self.initialValue = initialValue
            self.reflected = reflected
            self.finalXOR = finalXOR
        }

        /// CRC-16/CCITT-FALSE (CRC-16/IBM-3740): poly 0x1021, init 0xFFFF. Check 0x29B1.
        public static let ccittFalse = Variant(
            name: "CRC-16/CCITT-FALSE", polynomial: 0x1021, initialValue: 0xFFFF, reflected: false, finalXOR: 0)
        /// CRC-16/XMODEM: poly 0x1021, init 0x0000. Check 0x31C3.
        public static let xmodem = Variant(
            name: "CRC-16/XMODEM", polynomial: 0x1021, initialValue: 0x0000, reflected: false, finalXOR: 0)
        /// CRC-16/KERMIT: poly 0x1021 reflected, init 0x0000. Check 0x2189.
        public static let kermit = Variant(
            name: "CRC-16/KERMIT", polynomial: 0x1021, initialValue: 0x0000, reflected: true, finalXOR: 0)
    }

    /// The variant this instance computes.
    public let variant: Variant
    @usableFromInline let tables: CRC16Tables

    /// The CRC of `variant`. Its lookup tables are built once per process for the
    /// polynomials above, so making a `CRC16` per frame costs nothing.
    public init(_ variant: Variant) {
        self.variant = variant
        self.tables = CRC16Tables.shared(polynomial: variant.polynomial, reflected: variant.reflected)
    }

    /// The CRC of `bytes`.
    @inlinable
    public func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        finalize(update(variant.initialValue, with: bytes))
    }

    /// Feeds `bytes` into a running register value (start from `variant.initialValue`).
    /// Contiguous bytes (arrays, slices, buffers) take the sliced-by-8 path.
    @inlinable
    public func update(_ register: UInt16, with bytes: some Sequence<UInt8>) -> UInt16 {
        if let crc = bytes.withContiguousStorageIfAvailable({ tables.update(register, with: $0) }) {
            return crc
        }
        var crc = register
        for byte in bytes { crc = tables.update(crc, with: byte) }
        return crc
    }

    /// Applies the final XOR to a register value fed with ``update(_:with:)``.
    @inlinable
    public func finalize(_ register: UInt16) -> UInt16 {
        register ^ variant.finalXOR
    }
}

extension UInt16 {
    var bitReversed: UInt16 {
        var value = self
        var result: UInt16 = 0
        for _ in 0..<16 {
            result = (result << 1) | (value & 1)
            value >>= 1
        }
        return result
    }
}
