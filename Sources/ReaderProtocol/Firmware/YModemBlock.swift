/// YModem's control bytes and blocks (reader documentation §7.2).
public enum YModem {
    /// Starts a 128-byte block.
    public static let soh: UInt8 = 0x01
    /// Starts a 1024-byte block.
    public static let stx: UInt8 = 0x02
    /// End of transmission.
    public static let eot: UInt8 = 0x04
    /// Block received.
    public static let ack: UInt8 = 0x06
    /// Block not received: send it again.
    public static let nak: UInt8 = 0x15
    /// Abort, sent twice.
    public static let can: UInt8 = 0x18
    /// The receiver's request to start in CRC mode.
    public static let crcRequest: UInt8 = 0x43
    /// Pads the last data block.
    public static let padding: UInt8 = 0x1A

    /// The length of a block that starts with `first` (`STX`: 1024 data bytes, else 128),
    /// header and CRC included.
    public static func blockLength(startingWith first: UInt8) -> Int { (first == stx ? 1024 : 128) + 5 }

    /// A block: `SOH`/`STX`, the number and its one's complement, `data` padded to 128 or
    /// 1024 bytes with `pad`, and the CRC-16/XMODEM of the padded data, high byte first.
    public static func block(number: UInt8, data: some Collection<UInt8>, pad: UInt8 = padding) -> [UInt8] {
        let size = data.count <= 128 ? 128 : 1024
        var block = [size == 128 ? soh : stx, number, ~number]
        block.reserveCapacity(size + 5)
        block += data.prefix(size)
        block += repeatElement(pad, count: size - min(data.count, size))
        let crc = CRC16(.xmodem).checksum(block[3...])
        block += [UInt8(crc >> 8), UInt8(truncatingIfNeeded: crc)]
        return block
    }

    /// Block 0 of a file: its name, a NUL, its size in decimal, NUL padding.
    public static func header(fileName: String, size: Int) -> [UInt8] {
        block(number: 0, data: Array(fileName.utf8.prefix(100)) + [0] + Array(String(size).utf8), pad: 0)
    }

    /// The empty block 0 that ends a batch.
    public static let endOfBatch = block(number: 0, data: [UInt8](), pad: 0)
}
