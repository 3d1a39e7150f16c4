/// The framing rules of one reader family: start byte, largest DATA, checksum variant, the
/// order its two bytes travel in, and how long a frame's bytes may be apart.
public struct FrameProfile: Sendable, Hashable {
    /// The order of the checksum's two bytes on the wire.
    public enum ChecksumByteOrder: Sendable, Hashable {
        /// High byte first, as the VPOS3356 sends it.
        case bigEndian
        /// Low byte first.
        case littleEndian
    }

    /// The byte every frame starts with.
    public var startByte: UInt8
    /// The largest DATA field a frame may carry; a declared length above it is invalid.
    public var maximumDataLength: Int
    /// The CRC-16 algorithm computed over MAIN through the last DATA byte.
    public var checksum: CRC16.Variant
    /// The order the checksum's bytes are sent in.
    public var checksumByteOrder: ChecksumByteOrder
    /// How long an incomplete frame waits for its next byte. The reader sends a frame's
    /// notifications back to back, so a frame that has received nothing for this long
    /// will never complete: it is cut off (``FrameDecoder/finish(_:)``) and the bytes after
    /// its STX are searched again.
    public var incompleteFrameTimeout: Duration

    /// The framing rules of a reader family other than ``vpos3356``.
    public init(
        startByte: UInt8, maximumDataLength: Int, checksum: CRC16.Variant, checksumByteOrder: ChecksumByteOrder,
        incompleteFrameTimeout: Duration = .milliseconds(250)
    ) {
        self.startByte = startByte
        self.maximumDataLength = maximumDataLength
        self.checksum = checksum
        self.checksumByteOrder = checksumByteOrder
        self.incompleteFrameTimeout = incompleteFrameTimeout
    }

    /// VPOS3356 family: STX `02`, DATA up to 1024 bytes, CRC-16/CCITT-FALSE sent high byte
    /// first, a frame's bytes never more than 250 ms apart.
    public static let vpos3356 = FrameProfile(
        startByte: 0x02, maximumDataLength: 1024, checksum: .ccittFalse, checksumByteOrder: .bigEndian,
        incompleteFrameTimeout: .milliseconds(250))

    /// STX, MAIN, SUB, LEN_H, LEN_L.
    public static let headerLength = 5
    /// Header plus the two checksum bytes: a whole frame is `data.count + overhead` bytes.
    public static let overhead = headerLength + 2

    /// The size of the largest valid frame.
    public var maximumFrameLength: Int { maximumDataLength + Self.overhead }
}
