/// The lookup tables of one CRC-16 polynomial, sliced by 8: `entries[k * 256 + b]` is what
/// byte `b` contributes to the register when `k` more bytes follow it in a block of eight,
/// so eight bytes cost eight lookups and no dependency chain between them.
///
/// Tables depend only on the polynomial and its bit order; the common ones are built once
/// per process and shared.
@usableFromInline
final class CRC16Tables: Sendable {
    let reflected: Bool
    private let entries: [UInt16]

    private init(polynomial: UInt16, reflected: Bool) {
        self.reflected = reflected
        var entries = [UInt16](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            entries[byte] = Self.entry(for: UInt8(byte), polynomial: polynomial, reflected: reflected)
        }
        // A byte followed by k more is the byte's entry fed k zero bytes.
        entries.withUnsafeMutableBufferPointer { entries in
            let first = UnsafeBufferPointer(rebasing: entries[..<256])
            for slice in 1..<8 {
                for byte in 0..<256 {
                    entries[slice * 256 + byte] = Self.step(
                        entries[(slice - 1) * 256 + byte], 0, reflected: reflected, table: first)
                }
            }
        }
        self.entries = entries
    }

    private static let polynomial1021 = CRC16Tables(polynomial: 0x1021, reflected: false)
    private static let polynomial1021Reflected = CRC16Tables(polynomial: 0x1021, reflected: true)

    /// The tables for `polynomial`: shared for 0x1021 (CCITT-FALSE, XMODEM, KERMIT, X-25),
    /// built anew for others.
    static func shared(polynomial: UInt16, reflected: Bool) -> CRC16Tables {
        guard polynomial == 0x1021 else { return CRC16Tables(polynomial: polynomial, reflected: reflected) }
        return reflected ? polynomial1021Reflected : polynomial1021
    }

    /// Feeds one byte.
    @usableFromInline
    func update(_ register: UInt16, with byte: UInt8) -> UInt16 {
        entries.withUnsafeBufferPointer { Self.step(register, byte, reflected: reflected, table: $0) }
    }

    /// One byte through the register, with the first table (a byte's own entries).
    @inline(__always)
    private static func step(
        _ register: UInt16, _ byte: UInt8, reflected: Bool, table: UnsafeBufferPointer<UInt16>
    ) -> UInt16 {
        reflected
            ? (register >> 8) ^ table[Int(UInt8(truncatingIfNeeded: register) ^ byte)]
            : (register << 8) ^ table[Int(UInt8(truncatingIfNeeded: register >> 8) ^ byte)]
    }

    /// Feeds contiguous bytes, eight at a time.
    @usableFromInline
    func update(_ register: UInt16, with bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        update(register, with: bytes) { _ in }
    }

    /// Feeds contiguous bytes, eight at a time, handing `afterEachBlock` the register after
    /// each block of eight (the bytes after the last whole block are fed one at a time).
    func update(
        _ register: UInt16, with bytes: UnsafeBufferPointer<UInt8>, afterEachBlock: (UInt16) -> Void
    ) -> UInt16 {
        entries.withUnsafeBufferPointer { table in
            var crc = register
            var index = 0
            let reflected = self.reflected
            while bytes.count - index >= 8 {
                let high = UInt8(truncatingIfNeeded: crc >> 8)
                let low = UInt8(truncatingIfNeeded: crc)
                let first = bytes[index] ^ (reflected ? low : high)
                let second = bytes[index + 1] ^ (reflected ? high : low)
                var next = table[7 * 256 + Int(first)] ^ table[6 * 256 + Int(second)]
                next ^= table[5 * 256 + Int(bytes[index + 2])] ^ table[4 * 256 + Int(bytes[index + 3])]
                next ^= table[3 * 256 + Int(bytes[index + 4])] ^ table[2 * 256 + Int(bytes[index + 5])]
                next ^= table[1 * 256 + Int(bytes[index + 6])] ^ table[Int(bytes[index + 7])]
                crc = next
                index += 8
                afterEachBlock(crc)
            }
            while index < bytes.count {
                crc = Self.step(crc, bytes[index], reflected: reflected, table: table)
                index += 1
            }
            return crc
        }
    }

    /// Byte `index`'s entry: the register after feeding it to a zero register.
    private static func entry(for index: UInt8, polynomial: UInt16, reflected: Bool) -> UInt16 {
        if reflected {
            let polynomial = polynomial.bitReversed
            var crc = UInt16(index)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1
            }
            return crc
        } else {
            var crc = UInt16(index) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ polynomial : crc << 1
            }
            return crc
        }
    }
}
