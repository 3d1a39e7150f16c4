/// Reads structured values off the front of a fuzzer's input, for structure-aware targets.
///
/// Reads never fail: once the bytes run out, every read yields zero (or nothing), so any
/// input maps to some structure and mutations of a byte change one field.
public struct FuzzInput: Sendable {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// How many bytes are left.
    public var remaining: Int { max(bytes.count - position, 0) }

    /// The next byte, or 0.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next two bytes, big-endian.
    public mutating func uint16() -> UInt16 {
        UInt16(byte()) << 8 | UInt16(byte())
    }

    /// Whether the next byte is odd.
    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A number in `range`, from as many bytes as the range needs (at most two).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = range.upperBound - range.lowerBound
        guard span > 0 else { return range.lowerBound }
        let raw = span < 256 ? Int(byte()) : Int(uint16())
        return range.lowerBound + raw % (span + 1)
    }

    /// The next `count` bytes (fewer if the input ends).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(position + max(count, 0), bytes.count)
        guard position < end else { return [] }
        defer { position = end }
        return Array(bytes[position..<end])
    }

    /// A length-prefixed run: one byte of length (0…255), then that many bytes.
    public mutating func shortRun() -> [UInt8] { bytes(Int(byte())) }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] { bytes(remaining) }
}
