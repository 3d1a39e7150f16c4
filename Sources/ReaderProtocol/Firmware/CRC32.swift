/// CRC-32/ISO-HDLC (zlib's `crc32`, the CRC of Ethernet and PNG): reflected polynomial
/// 0x04C11DB7, initial value and final XOR 0xFFFFFFFF. Check value (`"123456789"`):
/// 0xCBF43926. Firmware images end with it (reader documentation §7.3).
public enum CRC32 {
    /// The CRC of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        ~update(0xFFFF_FFFF, with: bytes)
    }

    /// Feeds `bytes` into a running register (start from 0xFFFFFFFF; the CRC is its
    /// complement).
    public static func update(_ register: UInt32, with bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = register
        for byte in bytes {
            crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
        }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }
}
