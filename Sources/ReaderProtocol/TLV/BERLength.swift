/// The length field of BER-TLV as EMV uses it (EMV Book 3 Annex B2): one byte `00`–`7F`,
/// or `81`, `82`, `83` followed by 1, 2 or 3 length bytes. `80` (indefinite) and `84`
/// and above are rejected.
enum BERLength {
    /// Reads the length field at `offset`, returning the length and the offset after the field.
    static func read(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws(TLVError) -> (length: Int, next: Int) {
        guard offset < buffer.count else { throw .truncatedLength(offset: offset) }
        let first = buffer[offset]
        if first < 0x80 { return (Int(first), offset + 1) }
        guard first != 0x80 else { throw .indefiniteLength(offset: offset) }
        let count = Int(first & 0x7F)
        guard count <= 3 else { throw .lengthFieldTooLong(offset: offset, lengthByteCount: count) }
        guard buffer.count - (offset + 1) >= count else { throw .truncatedLength(offset: offset) }
        let length = buffer[offset + 1...offset + count].reduce(0) { $0 << 8 | Int($1) }
        return (length, offset + 1 + count)
    }

    /// Appends the shortest encoding of `length`.
    static func append(_ length: Int, to bytes: inout SensitiveBytes) {
        guard length >= 0x80 else {
            bytes.append(UInt8(length))
            return
        }
        var field: [UInt8] = []
        var remaining = length
        while remaining > 0 {
            field.insert(UInt8(truncatingIfNeeded: remaining), at: 0)
            remaining >>= 8
        }
        bytes.append(0x80 | UInt8(field.count))
        bytes.append(contentsOf: field)
    }
}
