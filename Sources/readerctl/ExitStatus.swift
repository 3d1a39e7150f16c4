import ArgumentParser
import CardReaderKit

/// readerctl's exit statuses, as `readerctl --help` documents them.
enum ExitStatus {
    /// Everything worked (decode: every frame intact and decodable).
    static let success = ExitCode(0)
    /// decode: damage or an undecodable frame was found.
    static let damageFound = ExitCode(1)
    /// decode: an input could not be read or is not a recording.
    static let unreadableInput = ExitCode(2)
    /// Nobody swiped or inserted a card in time, or the reader did not answer in time.
    static let timedOut = ExitCode(3)
    /// Bad swipe: no track could be read.
    static let badSwipe = ExitCode(4)
    /// No card in the chip slot, or it was removed during the operation.
    static let noCard = ExitCode(5)
    /// Could not connect, or the link to the reader was lost.
    static let linkLost = ExitCode(6)
    /// The reader or the card refused the operation, or answered something malformed.
    static let refused = ExitCode(7)
    /// Usage error: a bad option or argument (ArgumentParser's EX_USAGE).
    static let usage = ExitCode(64)
    /// Cancelled with Ctrl-C (the reader was sent CANCEL).
    static let cancelled = ExitCode(130)

    /// The table `--help` prints.
    static let help = """
        Exit status:
          0    success
          1    decode: damage or an undecodable frame was found
          2    decode: an input could not be read or is not a recording
          3    timed out: no swipe or card in time, or the reader did not answer
          4    bad swipe: no track could be read
          5    no card in the chip slot, or it was removed during the operation
          6    could not connect, or the link to the reader was lost
          7    the reader or the card refused the operation
          64   usage error
          130  cancelled (Ctrl-C); the reader was sent CANCEL
        """

    /// The exit status for an operation's error.
    static func of(_ error: CardReaderError) -> ExitCode {
        switch error {
        case .cardholderTimeout, .readerTimedOut, .readerNotResponding: timedOut
        case .badSwipe: badSwipe
        case .noCard, .cardRemoved: noCard
        case .notConnected, .connectionTimedOut, .connectionFailed, .linkLost, .writeFailed: linkLost
        case .cancelled: cancelled
        case .invalidRequest: usage
        case .readerBusy, .batteryTooLow, .cardNotResponding, .cardNotPowered, .readerRejected, .malformedResponse,
            .cardRefused, .invalidCardData:
            refused
        }
    }

    /// A stable identifier for `--json` error objects.
    static func identifier(_ error: CardReaderError) -> String {
        switch error {
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
        }
    }
}
