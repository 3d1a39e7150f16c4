/// A flat, printable account of one frame or damaged region of a recording: what
/// `readerctl decode --json` prints one per line, and what golden tests compare against.
///
/// Card data is masked unless the record is built with `revealingCardData: true`: PANs
/// show the first 6 and last 4 digits; names, discretionary data and track 3 are left out;
/// APDU data shows as data objects by name with card data masked by tag
/// (``EMVDataRenderer``), and APDU data that is not data objects is left out. Field names are documented in
/// Docs/decoding-recordings.md.
public struct DecodedRecord: Sendable, Hashable, Codable {
    /// `frame` or `damage`.
    public var type: String
    /// `host-to-reader` or `reader-to-host`.
    public var direction: String
    /// Line (text recording) or record number (capture) of the packet that completed it.
    public var line: Int
    /// Seconds since the start of the recording of the packet that completed it, when the
    /// recording has timestamps.
    public var timestamp: Double?
    /// Byte offset in its direction's stream.
    public var offset: Int
    /// Bytes of the frame or of the damaged region.
    public var length: Int
    /// Frame: `command`, `response`, `event`, or `invalid` when DATA does not decode.
    public var kind: String?
    /// Frame: MAIN and SUB, e.g. `C1 07`.
    public var code: String?
    /// Frame: the command or event name.
    public var name: String?
    /// Response: the status byte in hex, e.g. `03`.
    public var status: String?
    /// Response: the status's identifier, e.g. `unreadable-stripe`.
    public var statusName: String?
    /// Frame: decoded fields (see the README): text, or numbers for sizes, counts and seconds.
    public var fields: [String: FieldValue]?
    /// Frame: an APDU's data objects by name, nested as in the data, card data masked
    /// unless revealing (``EMVDataRenderer``).
    public var dataObjects: [EMVDataElementDescription]?
    /// Damage: `noise`, `length-out-of-range`, `checksum-mismatch`, `truncated`; invalid frame: why.
    public var reason: String?
    /// A sentence for a person.
    public var detail: String?
    /// The input it came from (a path, or `-` for standard input); set by tools that
    /// decode several inputs.
    public var source: String?

    /// A record from its fields, as a decoder or a golden test builds it; ``dataObjects``
    /// and ``source`` start nil.
    public init(
        type: String, direction: String, line: Int, timestamp: Double? = nil, offset: Int, length: Int,
        kind: String? = nil, code: String? = nil, name: String? = nil, status: String? = nil,
        statusName: String? = nil, fields: [String: FieldValue]? = nil, reason: String? = nil, detail: String? = nil
    ) {
        self.type = type
        self.direction = direction
        self.line = line
        self.timestamp = timestamp
        self.offset = offset
        self.length = length
        self.kind = kind
        self.code = code
        self.name = name
        self.status = status
        self.statusName = statusName
        self.fields = fields
        self.reason = reason
        self.detail = detail
    }

    /// The record of one decoded entry.
    public init(_ entry: RecordingDecoder.Entry, revealingCardData reveal: Bool = false) {
        var session = EMVSessionContext()
        self.init(entry, revealingCardData: reveal, session: &session)
    }

    /// The record of one decoded entry of a session decoded in order: `session` carries the
    /// card's data object lists from the answers before, so that GET PROCESSING OPTIONS' and
    /// GENERATE AC's data read by name.
    public init(_ entry: RecordingDecoder.Entry, revealingCardData reveal: Bool = false, session: inout EMVSessionContext) {
        self.init(
            type: "frame", direction: entry.direction.description, line: entry.location,
            timestamp: entry.timestamp, offset: 0, length: 0)
        switch entry.content {
        case .damage(let damage):
            type = "damage"
            offset = damage.offset
            length = damage.length
            reason = damage.reason.identifier
            detail = damage.reason.description
        case .frame(let frame, let frameOffset, let message):
            offset = frameOffset
            length = frame.data.count + FrameProfile.overhead
            code = frame.code.description
            switch message {
            case .success(let message):
                describe(message, reveal: reveal, session: &session)
            case .failure(let error):
                kind = "invalid"
                name = frame.code.isEvent ? "event" : frame.code.commandName
                reason = "undecodable"
                detail = error.description
            }
        }
    }

    private mutating func describe(_ message: ReaderMessage, reveal: Bool, session: inout EMVSessionContext) {
        let fields: [String: FieldValue]
        switch message {
        case .command(let command):
            kind = "command"
            name = command.code.commandName
            fields = command.fields(revealingCardData: reveal)
            if case .iccAPDU(let apdu) = command { dataObjects = session.describeData(of: apdu, revealingCardData: reveal) }
        case .response(let response):
            kind = "response"
            name = response.code.commandName ?? "unknown command \(response.code)"
            status = response.status.rawValue.hexByte
            statusName = response.status.identifier
            fields = response.body.fields(revealingCardData: reveal)
            dataObjects = response.body.dataObjects(revealingCardData: reveal)
            if case .apdu(let apdu) = response.body { session.observe(apdu) }
        case .event(let event):
            kind = "event"
            name = event.name
            fields = event.fields
        }
        self.fields = fields.isEmpty ? nil : fields
    }
}
