/// The status byte that starts every response's DATA (reader documentation §5).
///
/// Codes the documentation reserves are kept as ``reserved(_:)`` with their value, so a
/// newer firmware's code reaches the caller intact.
public enum ReaderStatus: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The command succeeded.
    case success
    /// Timed out waiting for the cardholder (no swipe, no card inserted).
    case cardholderTimeout
    /// Cancelled by the host.
    case cancelled
    /// Magnetic stripe unreadable (bad swipe).
    case unreadableStripe
    /// No card in the chip slot.
    case noCard
    /// Card removed during the operation.
    case cardRemoved
    /// The reader does not know the command.
    case unknownCommand
    /// LEN or DATA out of range.
    case invalidParameter
    /// Another command is being processed.
    case busy
    /// Chip card did not answer (no ATR, parity or protocol error).
    case cardNotResponding
    /// APDU or POWER OFF before POWER ON.
    case cardNotPowered
    /// Battery too low for this operation.
    case batteryTooLow
    /// A code the documentation reserves.
    case reserved(UInt8)

    /// The status of a status byte; codes the documentation reserves become ``reserved(_:)``.
    public init(rawValue: UInt8) {
        self =
            switch rawValue {
            case 0x00: .success
            case 0x01: .cardholderTimeout
            case 0x02: .cancelled
            case 0x03: .unreadableStripe
            case 0x04: .noCard
            case 0x05: .cardRemoved
            case 0x06: .unknownCommand
            case 0x07: .invalidParameter
            case 0x08: .busy
            case 0x09: .cardNotResponding
            case 0x0A: .cardNotPowered
            case 0x0B: .batteryTooLow
            default: .reserved(rawValue)
            }
    }

    /// The status byte, `00` … `0B`, or a reserved code's own value.
    public var rawValue: UInt8 {
        switch self {
        case .success: 0x00
        case .cardholderTimeout: 0x01
        case .cancelled: 0x02
        case .unreadableStripe: 0x03
        case .noCard: 0x04
        case .cardRemoved: 0x05
        case .unknownCommand: 0x06
        case .invalidParameter: 0x07
        case .busy: 0x08
        case .cardNotResponding: 0x09
        case .cardNotPowered: 0x0A
        case .batteryTooLow: 0x0B
        case .reserved(let code): code
        }
    }

    /// A stable identifier for scripts, e.g. `unreadable-stripe`.
    public var identifier: String {
        switch self {
        case .success: "success"
        case .cardholderTimeout: "cardholder-timeout"
        case .cancelled: "cancelled"
        case .unreadableStripe: "unreadable-stripe"
        case .noCard: "no-card"
        case .cardRemoved: "card-removed"
        case .unknownCommand: "unknown-command"
        case .invalidParameter: "invalid-parameter"
        case .busy: "busy"
        case .cardNotResponding: "card-not-responding"
        case .cardNotPowered: "card-not-powered"
        case .batteryTooLow: "battery-too-low"
        case .reserved: "reserved"
        }
    }

    /// The documentation's wording.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .cardholderTimeout: "timed out waiting for the cardholder"
        case .cancelled: "cancelled by the host"
        case .unreadableStripe: "magnetic stripe unreadable (bad swipe)"
        case .noCard: "no card in the chip slot"
        case .cardRemoved: "card removed during the operation"
        case .unknownCommand: "unknown command"
        case .invalidParameter: "invalid parameter (LEN or DATA out of range)"
        case .busy: "busy: another command is being processed"
        case .cardNotResponding: "chip card did not answer (no ATR, parity or protocol error)"
        case .cardNotPowered: "card not powered"
        case .batteryTooLow: "battery too low for this operation"
        case .reserved: "reserved status code (unknown to this SDK)"
        }
    }

    /// `0x03 (magnetic stripe unreadable (bad swipe))`.
    public var description: String { "0x\(rawValue.hexByte) (\(meaning))" }
}
