/// One BLE packet of a recording: a write to the reader or a notification from it.
public struct RecordedPacket: Sendable, Hashable {
    /// A write to the reader (``LinkDirection/hostToReader``) or a notification from it.
    public var direction: LinkDirection
    /// The packet's payload exactly as carried, which can hold card data.
    public var bytes: [UInt8]
    /// Seconds since the start of the recording, when the recording has them.
    public var timestamp: Double?
    /// Where the packet is in its source (line number of a text recording, record number
    /// of a capture), for messages that point a person at it.
    public var location: Int

    /// A packet carrying `bytes` in `direction`, found at `location` of its source.
    public init(direction: LinkDirection, bytes: [UInt8], timestamp: Double? = nil, location: Int) {
        self.direction = direction
        self.bytes = bytes
        self.timestamp = timestamp
        self.location = location
    }
}

extension RecordedPacket: CustomStringConvertible {
    /// Direction, size and location only: packets carry card data.
    public var description: String { "\(direction) packet of \(bytes.count) bytes at \(location)" }
}
