/// A reader-initiated event (MAIN `E0`, reader documentation §6). Events carry no status
/// byte, need no answer, and may arrive between a command and its response.
public enum ReaderEvent: Sendable, Hashable, CustomStringConvertible {
    /// `E0 01`: a card was inserted in the chip slot.
    case cardInserted
    /// `E0 02`: the card was removed from the chip slot.
    case cardRemoved
    /// `E0 03`: the battery is low.
    case batteryLow(percent: UInt8)
    /// `E0 04`: the reader will reset itself (its scheduled daily reset).
    case resetScheduled(secondsUntilReset: UInt16)
    /// An event SUB this SDK does not know, kept whole for newer firmware.
    case unrecognized(sub: UInt8, data: [UInt8])

    /// The event's frame.
    public var frame: Frame {
        switch self {
        case .cardInserted: Frame(main: CommandCode.eventMain, sub: 0x01)
        case .cardRemoved: Frame(main: CommandCode.eventMain, sub: 0x02)
        case .batteryLow(let percent): Frame(main: CommandCode.eventMain, sub: 0x03, data: [percent])
        case .resetScheduled(let seconds): Frame(main: CommandCode.eventMain, sub: 0x04, data: seconds.bigEndianBytes)
        case .unrecognized(let sub, let data): Frame(main: CommandCode.eventMain, sub: sub, data: data)
        }
    }

    /// Decodes an event frame; a known event with the wrong DATA length is an error.
    public init(frame: Frame) throws(MessageDecodingError) {
        guard frame.code.isEvent else { throw .notAnEvent(frame.code) }
        let data = frame.data
        switch frame.code.sub {
        case 0x01:
            guard data.isEmpty else { throw .wrongDataLength(frame.code, expected: "0", actual: data.count) }
            self = .cardInserted
        case 0x02:
            guard data.isEmpty else { throw .wrongDataLength(frame.code, expected: "0", actual: data.count) }
            self = .cardRemoved
        case 0x03:
            guard data.count == 1 else { throw .wrongDataLength(frame.code, expected: "1", actual: data.count) }
            self = .batteryLow(percent: data[0])
        case 0x04:
            guard data.count == 2 else { throw .wrongDataLength(frame.code, expected: "2", actual: data.count) }
            self = .resetScheduled(secondsUntilReset: UInt16(data[0]) << 8 | UInt16(data[1]))
        default:
            self = .unrecognized(sub: frame.code.sub, data: data)
        }
    }

    /// The documented event name, e.g. `card inserted`.
    public var name: String {
        switch self {
        case .cardInserted: "card inserted"
        case .cardRemoved: "card removed"
        case .batteryLow: "battery low"
        case .resetScheduled: "reset scheduled"
        case .unrecognized(let sub, _): "unrecognized event E0 \(sub.hexByte)"
        }
    }

    /// The event with its value, e.g. `battery low (15%)`; an unrecognized event's DATA by length only.
    public var description: String {
        switch self {
        case .batteryLow(let percent): "battery low (\(percent)%)"
        case .resetScheduled(let seconds): "reset scheduled in \(seconds) s"
        case .unrecognized(let sub, let data): "unrecognized event E0 \(sub.hexByte) (\(data.count) data bytes)"
        default: name
        }
    }
}

extension UInt16 {
    var bigEndianBytes: [UInt8] { [UInt8(truncatingIfNeeded: self >> 8), UInt8(truncatingIfNeeded: self)] }
}
