import ReaderProtocol

/// Something the reader told the host on its own, or the end of the connection.
public enum CardReaderEvent: Sendable, Hashable, CustomStringConvertible {
    /// A card was inserted in the chip slot (event `E0 01`).
    case cardInserted
    /// The card was removed from the chip slot (event `E0 02`).
    case cardRemoved
    /// The reader's battery is low, at this percentage (event `E0 03`).
    case batteryLow(percent: UInt8)
    /// The reader will reset itself (its scheduled daily reset) after this long.
    case resetScheduled(after: Duration)
    /// An event this SDK does not know, kept for newer firmware.
    case unrecognized(sub: UInt8, dataLength: Int)
    /// The link dropped and the reconnect policy makes this attempt (from 1).
    case reconnecting(attempt: Int, after: LinkError)
    /// A reconnection attempt opened a new link.
    case reconnected
    /// The connection is over; nil when the host disconnected on purpose. The last event
    /// of an ``CardReader/events()`` stream.
    case disconnected(LinkError?)

    init(_ event: ReaderEvent) {
        switch event {
        case .cardInserted: self = .cardInserted
        case .cardRemoved: self = .cardRemoved
        case .batteryLow(let percent): self = .batteryLow(percent: percent)
        case .resetScheduled(let seconds): self = .resetScheduled(after: .seconds(Int(seconds)))
        case .unrecognized(let sub, let data): self = .unrecognized(sub: sub, dataLength: data.count)
        }
    }

    /// The event in words, e.g. `battery low (15%)` or `reconnecting (attempt 2, after …)`.
    public var description: String {
        switch self {
        case .cardInserted: "card inserted"
        case .cardRemoved: "card removed"
        case .batteryLow(let percent): "battery low (\(percent)%)"
        case .resetScheduled(let after): "reader will reset in \(after)"
        case .unrecognized(let sub, let length): "unrecognized event E0 \(String(sub, radix: 16, uppercase: true)) (\(length) bytes)"
        case .reconnecting(let attempt, let reason): "reconnecting (attempt \(attempt), after \(reason))"
        case .reconnected: "reconnected"
        case .disconnected(let reason?): "disconnected: \(reason)"
        case .disconnected(nil): "disconnected"
        }
    }
}

/// Where the connection to the reader stands.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// No link: before the first connect, or after ``CardReader/disconnect()``.
    case disconnected
    /// ``CardReader/connect(timeout:)`` is opening the link.
    case connecting
    /// The link is open: commands can be sent.
    case connected
    /// The link dropped on its own and the reconnect policy is making this attempt (from 1).
    case reconnecting(attempt: Int)
    /// The link dropped on its own, for this reason (and no reconnection brought it back).
    case lost(LinkError)

    /// The state in words, e.g. `connected` or `reconnecting (attempt 2)`.
    public var description: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let attempt): "reconnecting (attempt \(attempt))"
        case .lost(let reason): "lost (\(reason))"
        }
    }
}

extension CardReaderEvent {
    /// A stable name of the event, e.g. `card-inserted`: what `readerctl events --json`
    /// prints as `event`.
    public var name: String {
        switch self {
        case .cardInserted: "card-inserted"
        case .cardRemoved: "card-removed"
        case .batteryLow: "battery-low"
        case .resetScheduled: "reset-scheduled"
        case .unrecognized: "unrecognized"
        case .reconnecting: "reconnecting"
        case .reconnected: "reconnected"
        case .disconnected: "disconnected"
        }
    }
}
