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
    private let table: [UInt16]

    /// Builds the 256-entry lookup table for `variant`.
    public init(_ variant: Variant) {
        self.variant = variant
        self.table = (0...255).map { CRC16.tableEntry(for: UInt8($0), variant: variant) }
    }

    /// The CRC of `bytes`.
    public func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        finalize(update(variant.initialValue, with: bytes))
    }

    /// Feeds `bytes` into a running register value (start from `variant.initialValue`).
    public func update(_ register: UInt16, with bytes: some Sequence<UInt8>) -> UInt16 {
        update(register, with: bytes) { _ in }
    }

    /// Feeds `bytes` into a running register value, handing `eachRegister` the register
    /// after every byte (the frame decoder keeps them for range checksums).
    func update(
        _ register: UInt16, with bytes: some Sequence<UInt8>, eachRegister: (UInt16) -> Void
    ) -> UInt16 {
        var crc = register
        table.withUnsafeBufferPointer { table in
            if variant.reflected {
                for byte in bytes {
                    crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)]
                    eachRegister(crc)
                }
            } else {
                for byte in bytes {
                    crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
                    eachRegister(crc)
                }
            }
        }
        return crc
    }

    /// Applies the final XOR to a register value fed with ``update(_:with:)``.
    public func finalize(_ register: UInt16) -> UInt16 {
        register ^ variant.finalXOR
    }

    private static func tableEntry(for index: UInt8, variant: Variant) -> UInt16 {
        if variant.reflected {
            let polynomial = variant.polynomial.bitReversed
            var crc = UInt16(index)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1
            }
            return crc
        } else {
            var crc = UInt16(index) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ variant.polynomial : crc << 1
            }
            return crc
        }
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
