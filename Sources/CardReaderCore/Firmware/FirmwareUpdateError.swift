import ReaderProtocol

/// Why a firmware update failed, and what the reader runs now. Block numbers count data
/// blocks from 1 without wrapping; block 0 is the header or the final empty block.
public enum FirmwareUpdateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The image is not one this reader accepts (damaged, another model…): nothing was sent.
    case invalidImage(FirmwareImageError)
    /// GET INFO reports a battery below what an update needs: nothing was sent.
    case batteryTooLow(percent: UInt8, required: UInt8)
    /// The reader refused ENTER FIRMWARE UPDATE with this status (`07` size, `08` busy,
    /// `0B` battery); it stays on its old firmware.
    case refused(ReaderStatus)
    /// The reader aborted the transfer (`CAN CAN`): 10 failed attempts at a block, no byte
    /// within 10 s, or a size mismatch. Old firmware kept.
    case abortedByReader(block: Int?)
    /// The reader refused (`NAK`) every attempt at a block. Old firmware kept.
    case tooManyNAKs(block: Int, attempts: Int)
    /// The reader did not answer within the deadline. Old firmware kept.
    case noAnswer(block: Int?, after: Duration)
    /// The link dropped during the transfer; the reader still runs its old firmware, and
    /// the update can be started again from the beginning.
    case linkLost(block: Int?, LinkError)
    /// The reader received the whole image and rejected it (`CAN CAN`): old firmware kept.
    case verificationFailed
    /// The reader accepted the image but did not come back within the deadline after its
    /// restart.
    case readerDidNotReturn(after: Duration)
    /// The reader came back reporting another version than the image's.
    case wrongVersion(expected: String, found: String?)
    /// The update was cancelled (`CAN CAN` sent); the reader keeps its old firmware and
    /// is usable at once.
    case cancelled(block: Int?)

    /// What failed, where, and which firmware the reader runs now, e.g.
    /// `the reader refused block 7 10 times (NAK); it keeps its old firmware`.
    public var description: String {
        switch self {
        case .invalidImage(let error):
            "the firmware image cannot be used: \(error)"
        case .batteryTooLow(let percent, let required):
            "the reader's battery is at \(percent) %; a firmware update needs at least \(required) %: charge it"
        case .refused(let status):
            "the reader refused to enter firmware update mode: status \(status)"
        case .abortedByReader(let block):
            "the reader aborted the transfer (CAN CAN)\(at(block)); it keeps its old firmware"
        case .tooManyNAKs(let block, let attempts):
            "the reader refused block \(block) \(attempts) times (NAK); it keeps its old firmware"
        case .noAnswer(let block, let after):
            "the reader did not answer within \(after)\(at(block)); it keeps its old firmware"
        case .linkLost(let block, let reason):
            "the link was lost\(at(block)) (\(reason)); the reader still runs its old firmware: start the update again"
        case .verificationFailed:
            "the reader rejected the image after receiving it (verification failed); it keeps its old firmware"
        case .readerDidNotReturn(let after):
            "the reader accepted the image but did not come back within \(after) of its restart"
        case .wrongVersion(let expected, let found):
            "the reader came back on version \(found ?? "(unknown)"), not \(expected)"
        case .cancelled(let block):
            "the update was cancelled\(at(block)); the reader keeps its old firmware"
        }
    }

    /// A stable identifier, e.g. `firmware-verification-failed`.
    public var identifier: String {
        switch self {
        case .invalidImage: "firmware-image-invalid"
        case .batteryTooLow: "firmware-battery-too-low"
        case .refused: "firmware-update-refused"
        case .abortedByReader: "firmware-aborted-by-reader"
        case .tooManyNAKs: "firmware-too-many-naks"
        case .noAnswer: "firmware-no-answer"
        case .linkLost: "firmware-link-lost"
        case .verificationFailed: "firmware-verification-failed"
        case .readerDidNotReturn: "firmware-reader-did-not-return"
        case .wrongVersion: "firmware-wrong-version"
        case .cancelled: "firmware-update-cancelled"
        }
    }

    /// Whether the reader certainly still runs its old firmware.
    public var oldFirmwareKept: Bool {
        switch self {
        case .readerDidNotReturn, .wrongVersion: false
        default: true
        }
    }

    init(_ error: YModemError) {
        switch error {
        case .abortedByReceiver(let block): self = .abortedByReader(block: block)
        case .tooManyNAKs(let block, let attempts): self = .tooManyNAKs(block: block, attempts: attempts)
        case .noAnswer(let block, let after): self = .noAnswer(block: block, after: after)
        case .verificationFailed: self = .verificationFailed
        case .cancelled(let block): self = .cancelled(block: block)
        }
    }
}

private func at(_ block: Int?) -> String {
    block.map { " at block \($0)" } ?? ""
}
