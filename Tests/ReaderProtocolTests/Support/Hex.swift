/// Bytes from a hex string written in a test ("02 C0 01" or "02c001"); spaces ignored.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16) ?? 0xEE)
        index = next
    }
    return bytes
}

/// Splits `bytes` into chunks of `size` (the last may be shorter), as notifications arrive.
func chunks(_ bytes: [UInt8], of size: Int) -> [[UInt8]] {
    stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
}
