import CardReaderCore

/// readerctl's exit statuses, which cardreaderctl shares: each case is one row of the
/// table `--help` prints.
public enum ExitStatus: Int32, CaseIterable, Sendable {
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

    /// What the status means, as `--help` says it.
    public var meaning: String {
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

    /// The table of `statuses`, under `title`, as `--help` prints it.
    public static func table(_ statuses: [ExitStatus], title: String) -> String {
        ([title] + statuses.map { "  " + "\($0.rawValue)".padded(to: 5) + $0.meaning }).joined(separator: "\n")
    }

    /// The exit status for an operation's error.
    public static func of(_ error: CardReaderError) -> ExitStatus {
        of(code: error.code, firmware: error.firmwareUpdate?.code, link: error.link?.code)
    }

    /// The exit status for a failure known by its codes: the SDK's, the firmware update's
    /// when it is one, and the link's when a link failed (what cardreaderd's errors carry).
    public static func of(code: CardReaderError.Code, firmware: FirmwareUpdateError.Code?, link: LinkError.Code?) -> ExitStatus {
        if let firmware {
            switch firmware {
            case .cancelled, .installedUnconfirmed: return cancelled
            case .invalidImage: return invalidFirmwareImage
            case .readerNeedsPairing: return linkNotSecure
            default: return firmwareNotUpdated
            }
        }
        if let link, link == .notPaired || link == .bondLost || link == .insufficientEncryption { return linkNotSecure }
        if link == .heldByService { return refused }
        switch code {
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

extension LinkError.Code {
    /// A reader cardreaderd holds, which readerctl refuses to take from it.
    public static let heldByService = Self(rawValue: "held-by-service")
}

extension String {
    /// The string followed by spaces up to `width` characters (never cut).
    public func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
