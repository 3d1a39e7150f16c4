/// Why a YModem transfer ended without success. Block numbers count from 1 for data
/// blocks without wrapping; 0 is block 0 (the header, or the final empty block).
public enum YModemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The receiver sent `CAN CAN` (for the reader: 10 failed attempts at a block, no byte
    /// within 10 s, or a size that disagrees with ENTER FIRMWARE UPDATE).
    case abortedByReceiver(block: Int?)
    /// The receiver answered `NAK` to every attempt at a block.
    case tooManyNAKs(block: Int, attempts: Int)
    /// Nothing came within the deadline (block nil: before the transfer started, or after
    /// the end of file).
    case noAnswer(block: Int?, after: Duration)
    /// The receiver rejected the complete batch (`CAN CAN` after the final block 0): for the
    /// reader, the image failed its verification.
    case verificationFailed
    /// This side cancelled the transfer (and sent `CAN CAN`).
    case cancelled(block: Int?)

    /// What ended the transfer and at which block, e.g. `block 7 was refused (NAK) 10 times`.
    public var description: String {
        switch self {
        case .abortedByReceiver(let block): "the receiver aborted the transfer (CAN CAN)\(at(block))"
        case .tooManyNAKs(let block, let attempts): "block \(block) was refused (NAK) \(attempts) times"
        case .noAnswer(let block, let after): "no answer within \(after)\(at(block))"
        case .verificationFailed: "the receiver rejected the image after the last block (CAN CAN)"
        case .cancelled(let block): "cancelled\(at(block))"
        }
    }
}

private func at(_ block: Int?) -> String {
    block.map { " at block \($0)" } ?? ""
}
