import ArgumentParser
import CardReaderKit

/// readerctl's exit statuses: each case is one row of the table `--help` prints.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case damageFound = 1
    case unreadableInput = 2
    case timedOut = 3
    case badSwipe = 4
    case noCard = 5
    case linkLost = 6
    case refused = 7
    case firmwareNotUpdated = 8
    case invalidFirmwareImage = 9
    case doctorFailed = 10
    case recordingRefused = 11
    case linkNotSecure = 12
    /// ArgumentParser's EX_USAGE.
    case usage = 64
    case cancelled = 130

    var meaning: String {
        switch self {
        case .success: "success"
        case .damageFound: "decode: damage or an undecodable frame was found"
        case .unreadableInput: "a file named could not be read or written (decode: or it is not a recording)"
        case .timedOut: "timed out: no swipe or card in time, or the reader did not answer"
        case .badSwipe: "bad swipe: no track could be read"
        case .noCard: "no card in the chip slot, or it was removed during the operation"
        case .linkLost: "could not connect, or the link to the reader was lost"
        case .refused: "the reader or the card refused the operation"
        case .firmwareNotUpdated: "update-firmware: at least one reader did not end on the new version"
        case .invalidFirmwareImage: "update-firmware: the image file is unreadable or damaged; nothing was sent"
        case .doctorFailed: "doctor: a check failed (each FAIL line says how to fix it)"
        case .recordingRefused: "--record: the run holds a card that is not a published test card (--reveal records it)"
        case .linkNotSecure:
            "the reader needs pairing (not paired, or it forgot this host), pairing failed, or a card operation was refused on an unencrypted link"
        case .usage: "usage error"
        case .cancelled: "cancelled by Ctrl-C; the reader was told (CANCEL, or CAN CAN mid-transfer); SIGTERM ends so with 143, SIGHUP with 129"
        }
    }

    /// The process's exit code; for ``cancelled``, 128 + the number of the signal that
    /// cancelled the work (SIGTERM 143, SIGHUP 129; Ctrl-C 130).
    var exitCode: ExitCode { self == .cancelled ? InterruptSignal.cancelledExitCode : ExitCode(rawValue) }

    /// The whole table, as `readerctl --help` prints it.
    static let help = table(allCases, title: "Exit status:")

    /// The statuses a subcommand can end with, as its `--help` prints them: `statuses`, with
    /// success and a usage error always among them.
    static func help(_ statuses: [ExitStatus]) -> String {
        let all = Set(statuses + [.success, .usage])
        return table(allCases.filter(all.contains), title: "Exit status (every status: readerctl --help):")
    }

    private static func table(_ statuses: [ExitStatus], title: String) -> String {
        ([title] + statuses.map { "  " + "\($0.rawValue)".padded(to: 5) + $0.meaning }).joined(separator: "\n")
    }

    /// The exit status for an operation's error.
    static func of(_ error: CardReaderError) -> ExitStatus {
        if let failure = error.firmwareUpdate {
            switch failure.code {
            case .cancelled, .installedUnconfirmed: return cancelled
            case .invalidImage: return invalidFirmwareImage
            case .readerNeedsPairing: return linkNotSecure
            default: return firmwareNotUpdated
            }
        }
        if let link = error.link, link.code == .notPaired || link.code == .bondLost || link.code == .insufficientEncryption {
            return linkNotSecure
        }
        if error.link?.code == ServiceHeldReaders.code { return refused }
        switch error.code {
        case .linkNotEncrypted: return linkNotSecure
        case .cardholderTimeout, .readerTimedOut, .readerNotResponding: return timedOut
        case .badSwipe: return badSwipe
        case .noCard, .cardRemoved: return noCard
        case .notConnected, .connectionTimedOut, .connectionFailed, .linkLost, .writeFailed: return linkLost
        case .cancelled: return cancelled
        case .invalidRequest: return usage
        default: return refused
        }
    }
}
