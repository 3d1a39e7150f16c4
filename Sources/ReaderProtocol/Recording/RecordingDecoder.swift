/// Decodes a recording: reassembles each direction's stream on its own and reports every
/// frame (with its decoded message) and every damaged region, in the order the packets
/// that completed them were recorded.
///
/// When packets carry timestamps, a frame left incomplete by a packet and followed by
/// nothing in its direction for the profile's ``FrameProfile/incompleteFrameTimeout`` is
/// cut off there, as a live host cuts it off, and reported at that packet.
public struct RecordingDecoder: Sendable {
    /// One result: a frame or a damaged region, with where it was found.
    public struct Entry: Sendable, Hashable {
        public enum Content: Sendable, Hashable {
            /// An intact frame at `offset` of its direction's stream, and its message, or why
            /// the frame's DATA does not decode as its code's message.
            case frame(Frame, offset: Int, message: Result<ReaderMessage, MessageDecodingError>)
            case damage(FrameDamage)
        }

        public var direction: LinkDirection
        /// The location of the packet that completed the frame or revealed the damage.
        public var location: Int
        public var timestamp: Double?
        public var content: Content
    }

    private var hostToReader: FrameDecoder
    private var readerToHost: FrameDecoder
    private var lastPacket: [LinkDirection: RecordedPacket] = [:]
    private let incompleteFrameTimeout: Double

    public init(profile: FrameProfile = .vpos3356) {
        hostToReader = FrameDecoder(profile: profile)
        readerToHost = FrameDecoder(profile: profile)
        let (seconds, attoseconds) = profile.incompleteFrameTimeout.components
        incompleteFrameTimeout = Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Feeds one packet and returns what it completed, after what the quiet before it cut off.
    public mutating func decode(_ packet: RecordedPacket) -> [Entry] {
        var entries: [Entry] = []
        if let previous = lastPacket[packet.direction], let then = previous.timestamp, let now = packet.timestamp,
            now - then >= incompleteFrameTimeout, withDecoder(packet.direction, { $0.hasIncompleteFrame })
        {
            entries += cutOff(packet.direction, at: previous)
        }
        lastPacket[packet.direction] = packet
        let handler = { (event: FrameDecoder.Event) in
            entries.append(Self.entry(event, packet: packet))
        }
        withDecoder(packet.direction) { $0.decode(packet.bytes, handler) }
        return entries
    }

    /// Ends both streams: frames cut off by the end of the recording are reported.
    public mutating func finish() -> [Entry] {
        [LinkDirection.hostToReader, .readerToHost].flatMap { direction in
            lastPacket[direction].map { cutOff(direction, at: $0) } ?? []
        }
    }

    /// The decoder of `direction`'s stream.
    private mutating func withDecoder<T>(_ direction: LinkDirection, _ body: (inout FrameDecoder) -> T) -> T {
        switch direction {
        case .hostToReader: body(&hostToReader)
        case .readerToHost: body(&readerToHost)
        }
    }

    /// Cuts off what `direction` holds, reporting it at `packet`, its last one.
    private mutating func cutOff(_ direction: LinkDirection, at packet: RecordedPacket) -> [Entry] {
        var entries: [Entry] = []
        let handler = { (event: FrameDecoder.Event) in
            entries.append(Self.entry(event, packet: packet))
        }
        withDecoder(direction) { $0.finish(handler) }
        return entries
    }

    /// Decodes a whole recording.
    public static func decode(_ packets: [RecordedPacket], profile: FrameProfile = .vpos3356) -> [Entry] {
        var decoder = RecordingDecoder(profile: profile)
        return packets.flatMap { decoder.decode($0) } + decoder.finish()
    }

    private static func entry(_ event: FrameDecoder.Event, packet: RecordedPacket) -> Entry {
        let content: Entry.Content =
            switch event {
            case .frame(let frame, let offset):
                .frame(
                    frame, offset: offset,
                    message: Result { () throws(MessageDecodingError) in
                        try ReaderMessage(frame: frame, direction: packet.direction)
                    })
            case .damage(let damage):
                .damage(damage)
            }
        return Entry(direction: packet.direction, location: packet.location, timestamp: packet.timestamp, content: content)
    }
}
