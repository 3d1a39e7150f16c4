/// Why a YModem receiver ended a transfer without the file. Block numbers count from 1
/// for data blocks without wrapping; 0 is block 0.
public enum YModemReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No block 0 arrived while `C` was being sent.
    case noSender
    /// No byte of the next block arrived within the deadline.
    case timedOut(block: Int)
    /// Every attempt at a block failed.
    case tooManyErrors(block: Int)
    /// Block 0's size disagrees with the size announced before the transfer.
    case sizeMismatch(announced: Int, header: Int)
    /// Block 0 carries no size.
    case sizeMissing
    /// Block 0 is empty: the sender has nothing to send.
    case emptyBatch
    /// The sender sent more data than block 0 announced.
    case tooMuchData(size: Int)
    /// The sender started a second file; one file per batch.
    case moreThanOneFile
    /// The receiver rejected the complete file (`CAN CAN`).
    case rejected
    /// The sender sent `CAN CAN`.
    case cancelledBySender
    /// This side cancelled (and sent `CAN CAN`).
    case cancelled

    /// What ended the transfer, with the block or sizes involved, e.g. `no byte of block 3 arrived in time`.
    public var description: String {
        switch self {
        case .noSender: "no block 0 arrived"
        case .timedOut(let block): "no byte of block \(block) arrived in time"
        case .tooManyErrors(let block): "every attempt at block \(block) failed"
        case .sizeMismatch(let announced, let header): "block 0 announces \(header) bytes, \(announced) were announced before"
        case .sizeMissing: "block 0 carries no file size"
        case .emptyBatch: "the batch holds no file"
        case .tooMuchData(let size): "the sender sent more than the \(size) bytes it announced"
        case .moreThanOneFile: "the batch holds more than one file"
        case .rejected: "the file was rejected"
        case .cancelledBySender: "the sender cancelled (CAN CAN)"
        case .cancelled: "cancelled"
        }
    }
}
