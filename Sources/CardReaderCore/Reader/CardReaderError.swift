import ReaderProtocol

/// Why a CardReader operation failed. Each case says what happened and carries what a
/// support engineer needs: the reader's status code, the card's status word, or the
/// link's reason. No case carries card data.
public enum CardReaderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation needs a connection; call `connect()` first.
    case notConnected
    /// No link to the reader within the connection deadline.
    case connectionTimedOut(reader: String, after: Duration)
    /// The transport could not open a link.
    case connectionFailed(reader: String, LinkError)
    /// The link dropped (reader out of range, switched off, reset, bluetoothd restarted…).
    case linkLost(LinkError)
    /// A packet could not be written to the reader.
    case writeFailed(LinkError)
    /// The reader did not answer a command within its deadline.
    case readerTimedOut(CommandCode, after: Duration)
    /// After an earlier command timed out or was cancelled, the reader answered neither it
    /// nor CANCEL: the reader cannot tell its answers apart any more. Reconnect.
    case readerNotResponding
    /// The caller's task was cancelled; the reader was sent CANCEL.
    case cancelled
    /// Status `01`: nobody swiped or inserted a card in time.
    case cardholderTimeout(CommandCode)
    /// Status `03`: the swipe yielded no decodable track.
    case badSwipe
    /// Status `04`: no card in the chip slot.
    case noCard
    /// Status `05`: the card was removed during the operation.
    case cardRemoved
    /// Status `08`: the reader is busy with another command (another host?).
    case readerBusy(CommandCode)
    /// Status `0B`: the battery is too low for this operation.
    case batteryTooLow(CommandCode)
    /// Status `09`: the chip card did not answer (no ATR, parity or protocol error).
    case cardNotResponding
    /// Status `0A`: the card must be powered on first.
    case cardNotPowered
    /// Any other status: unknown command (`06`), invalid parameter (`07`), or a reserved code.
    case readerRejected(CommandCode, ReaderStatus)
    /// The reader's answer did not decode as the command's response.
    case malformedResponse(CommandCode, MessageDecodingError)
    /// The request cannot be sent to this reader, e.g. an extended-length APDU.
    case invalidRequest(String)
    /// The card answered an EMV step with an error status word.
    case cardRefused(step: String, StatusWord)
    /// The card's EMV data lacks or garbles something the read needs.
    case invalidCardData(String)
    /// A firmware update failed; the case says at which step and what the reader runs now.
    case firmwareUpdateFailed(FirmwareUpdateError)

    /// The reader status code behind this error, when there is one.
    public var readerStatus: ReaderStatus? {
        switch self {
        case .cardholderTimeout: .cardholderTimeout
        case .cancelled: .cancelled
        case .badSwipe: .unreadableStripe
        case .noCard: .noCard
        case .cardRemoved: .cardRemoved
        case .readerBusy: .busy
        case .batteryTooLow: .batteryTooLow
        case .cardNotResponding: .cardNotResponding
        case .cardNotPowered: .cardNotPowered
        case .readerRejected(_, let status): status
        case .firmwareUpdateFailed(.refused(let status)): status
        default: nil
        }
    }

    /// Maps a failure status of `command`'s response to its error.
    static func status(_ status: ReaderStatus, of command: CommandCode) -> CardReaderError {
        switch status {
        case .cardholderTimeout: .cardholderTimeout(command)
        case .cancelled: .cancelled
        case .unreadableStripe: .badSwipe
        case .noCard: .noCard
        case .cardRemoved: .cardRemoved
        case .busy: .readerBusy(command)
        case .batteryTooLow: .batteryTooLow(command)
        case .cardNotResponding: .cardNotResponding
        case .cardNotPowered: .cardNotPowered
        case .success, .unknownCommand, .invalidParameter, .reserved: .readerRejected(command, status)
        }
    }

    /// What went wrong and, where there is one, what to do, e.g.
    /// `the card could not be read; swipe again`; never card data.
    public var description: String {
        switch self {
        case .notConnected:
            "not connected to a reader"
        case .connectionTimedOut(let reader, let after):
            "could not connect to \(reader) within \(after)"
        case .connectionFailed(let reader, let error):
            "could not connect to \(reader): \(error)"
        case .linkLost(let reason):
            "the link to the reader was lost (\(reason))"
        case .writeFailed(let error):
            "could not write to the reader: \(error)"
        case .readerTimedOut(let code, let after):
            "the reader did not answer \(code.commandName ?? "\(code)") within \(after)"
        case .readerNotResponding:
            "the reader answers neither the timed-out command nor CANCEL; reconnect"
        case .cancelled:
            "cancelled"
        case .cardholderTimeout(let code):
            code == .readMagneticStripe ? "no card was swiped in time" : "no card was inserted in time"
        case .badSwipe:
            "the card could not be read; swipe again"
        case .noCard:
            "no card in the chip slot"
        case .cardRemoved:
            "the card was removed during the operation"
        case .readerBusy(let code):
            "the reader is busy and refused \(code.commandName ?? "\(code)") (status 08)"
        case .batteryTooLow(let code):
            "the reader's battery is too low for \(code.commandName ?? "\(code)") (status 0B); charge it"
        case .cardNotResponding:
            "the chip card did not answer (status 09); reinsert it"
        case .cardNotPowered:
            "the chip card is not powered (status 0A); power it on first"
        case .readerRejected(let code, let status):
            "the reader refused \(code.commandName ?? "\(code)"): status \(status)"
        case .malformedResponse(let code, let error):
            "the reader's answer to \(code.commandName ?? "\(code)") is malformed: \(error)"
        case .invalidRequest(let reason):
            "invalid request: \(reason)"
        case .cardRefused(let step, let statusWord):
            "the card refused \(step): SW \(statusWord)"
        case .invalidCardData(let reason):
            "the card's data is invalid: \(reason)"
        case .firmwareUpdateFailed(let error):
            "firmware update failed: \(error)"
        }
    }
}

extension CardReaderError {
    /// What a person can do about it, when the description does not say already: for a
    /// link that could not open or was lost, the link's `LinkError.fix` (start bluetoothd,
    /// power the adapter on, the bus's policy, …); nil for the reader's and the card's
    /// answers, whose descriptions say what to do.
    public var fix: String? {
        switch self {
        case .connectionFailed(_, let error), .linkLost(let error), .writeFailed(let error):
            error.fix
        case .connectionTimedOut:
            "make sure the reader is switched on, charged, in range and not connected to another host; "
                + "a longer connect timeout helps a reader that advertises slowly; `readerctl doctor --reader NAME` "
                + "checks each step from the system bus to the reader's answer"
        case .readerNotResponding:
            "disconnect and connect again"
        default:
            nil
        }
    }

    /// A stable identifier of what happened, e.g. `cardholder-timeout`, `link-lost`: what
    /// programs decide on and `readerctl --json` prints as `error`.
    public var identifier: String {
        switch self {
        case .notConnected: "not-connected"
        case .connectionTimedOut: "connection-timed-out"
        case .connectionFailed: "connection-failed"
        case .linkLost: "link-lost"
        case .writeFailed: "write-failed"
        case .readerTimedOut: "reader-timed-out"
        case .readerNotResponding: "reader-not-responding"
        case .cancelled: "cancelled"
        case .cardholderTimeout: "cardholder-timeout"
        case .badSwipe: "bad-swipe"
        case .noCard: "no-card"
        case .cardRemoved: "card-removed"
        case .readerBusy: "reader-busy"
        case .batteryTooLow: "battery-too-low"
        case .cardNotResponding: "card-not-responding"
        case .cardNotPowered: "card-not-powered"
        case .readerRejected: "reader-rejected"
        case .malformedResponse: "malformed-response"
        case .invalidRequest: "invalid-request"
        case .cardRefused: "card-refused"
        case .invalidCardData: "invalid-card-data"
        case .firmwareUpdateFailed(let error): error.identifier
        }
    }
}
