/// Decodes a recording: reassembles each direction's stream on its own and reports every
/// frame (with its decoded message) and every damaged region, in the order the packets
/// that completed them were recorded.
///
/// When packets carry timestamps, a frame left incomplete by a packet and followed by
/// nothing in its direction for the profile's ``FrameProfile/incompleteFrameTimeout`` is
/// cut off there, as a live host cuts it off, and reported at that packet.
///
/// Consecutive damage of one kind in one direction, each region starting where the last
/// ended, is one entry: the first region's location and details, their combined length.
/// A run of a million false starts is one entry, so what a recording yields stays small
/// whatever it holds; the entry comes out when the run ends.
public struct RecordingDecoder: Sendable {
    /// One result: a frame or a damaged region, with where it was found.
    public struct Entry: Sendable, Hashable {
        /// What was found: an intact frame or a damaged region.
        public enum Content: Sendable, Hashable {
            /// An intact frame at `offset` of its direction's stream, and its message, or why
            /// the frame's DATA does not decode as its code's message.
            case frame(Frame, offset: Int, message: Result<ReaderMessage, MessageDecodingError>)
            /// A region of its direction's stream that did not decode as a frame.
            case damage(FrameDamage)
        }

        /// The stream the frame or damage was found in.
        public var direction: LinkDirection
        /// The location of the packet that completed the frame or revealed the damage.
        public var location: Int
        /// The timestamp of the packet that completed the frame or revealed the damage, in
        /// seconds since the start of the recording, when the recording has timestamps.
        public var timestamp: Double?
        /// The frame and its message, or the damaged region.
        public var content: Content
    }

    private var hostToReader: FrameDecoder
    private var readerToHost: FrameDecoder
    private var lastPacket: [LinkDirection: RecordedPacket] = [:]
    private let incompleteFrameTimeout: Double
    /// Damage that the next entry may continue.
    private var pendingDamage: Entry?

    /// A decoder for a recording of a reader that frames under `profile`.
    public init(profile: FrameProfile = .vpos3356) {
        hostToReader = FrameDecoder(profile: profile)
        readerToHost = FrameDecoder(profile: profile)
        let (seconds, attoseconds) = profile.incompleteFrameTimeout.components
        incompleteFrameTimeout = Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Feeds one packet and hands over what it completed, after what the quiet before it cut
    /// off; damage that may go on is held until its run ends.
    public mutating func decode(_ packet: RecordedPacket, _ handler: (Entry) -> Void) {
        if let previous = lastPacket[packet.direction], let then = previous.timestamp, let now = packet.timestamp,
            now - then >= incompleteFrameTimeout, withDecoder(packet.direction, { $0.hasIncompleteFrame })
        {
            cutOff(packet.direction, at: previous, handler)
        }
        lastPacket[packet.direction] = packet
        feed(.bytes(of: packet), handler)
    }

    /// Ends both streams: frames cut off by the end of the recording are reported, and the
    /// damage held.
    public mutating func finish(_ handler: (Entry) -> Void) {
        for direction in [LinkDirection.hostToReader, .readerToHost] {
            if let packet = lastPacket[direction] { cutOff(direction, at: packet, handler) }
        }
        if let pending = pendingDamage { handler(pending) }
        pendingDamage = nil
    }

    /// Convenience: the entries of one packet as an array.
    public mutating func decode(_ packet: RecordedPacket) -> [Entry] {
        var entries: [Entry] = []
        decode(packet) { entries.append($0) }
        return entries
    }

    /// Convenience: the entries of ending both streams as an array.
    public mutating func finish() -> [Entry] {
        var entries: [Entry] = []
        finish { entries.append($0) }
        return entries
    }

    /// What a direction's decoder is given: a packet's bytes, or the end of its stream (cut
    /// off after its last packet).
    private enum Input {
        case bytes(of: RecordedPacket)
        case end(after: RecordedPacket)
    }

    /// Gives `input` to its direction's decoder, passing each entry it makes through the
    /// merging of damage runs on its way to `handler`.
    private mutating func feed(_ input: Input, _ handler: (Entry) -> Void) {
        var pending = pendingDamage
        switch input {
        case .bytes(let packet):
            withDecoder(packet.direction) {
                $0.decode(packet.bytes) { Self.merge(Self.entry($0, packet: packet), into: &pending, handler) }
            }
        case .end(let packet):
            withDecoder(packet.direction) {
                $0.finish { Self.merge(Self.entry($0, packet: packet), into: &pending, handler) }
            }
        }
        pendingDamage = pending
    }

    /// Adds `entry` to the pending damage if it continues it; otherwise hands the pending
    /// damage over and holds `entry` if it is damage, or hands it over too.
    private static func merge(_ entry: Entry, into pending: inout Entry?, _ handler: (Entry) -> Void) {
        if case .damage(let damage) = entry.content, var held = pending, case .damage(var run) = held.content,
            held.direction == entry.direction, run.offset + run.length == damage.offset,
            run.reason.identifier == damage.reason.identifier
        {
            run.length += damage.length
            held.content = .damage(run)
            pending = held
            return
        }
        if let held = pending { handler(held) }
        if case .damage = entry.content {
            pending = entry
        } else {
            pending = nil
            handler(entry)
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
    private mutating func cutOff(_ direction: LinkDirection, at packet: RecordedPacket, _ handler: (Entry) -> Void) {
        feed(.end(after: packet), handler)
    }

    /// Decodes a whole recording.
    public static func decode(_ packets: [RecordedPacket], profile: FrameProfile = .vpos3356) -> [Entry] {
        var decoder = RecordingDecoder(profile: profile)
        var entries: [Entry] = []
        for packet in packets { decoder.decode(packet) { entries.append($0) } }
        decoder.finish { entries.append($0) }
        return entries
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
