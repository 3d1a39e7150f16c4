import ReaderProtocol

/// Bytes from hex written in a test ("02 C0 01" or "02c001"), read by `HexText`: a typo
/// stops the run at once instead of becoming a byte.
func hex(_ text: String) -> [UInt8] {
    do {
        return try HexText.bytes(text)
    } catch {
        preconditionFailure("hex in a test: '\(text)': \(error)")
    }
}

/// Splits `bytes` into chunks of `size` (the last may be shorter), as notifications arrive.
func chunks(_ bytes: [UInt8], of size: Int) -> [[UInt8]] {
    stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
}
