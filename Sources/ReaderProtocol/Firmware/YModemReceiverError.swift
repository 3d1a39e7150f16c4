/// Why a YModem receiver ended a transfer without the file. Block numbers count from 1
/// for data blocks without wrapping; 0 is block 0.
public struct YModemReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What ended the transfer, with the block or sizes involved, e.g. `no byte of block 3 arrived in time`.
    public var description: String { storage.description }

    /// The block the transfer ended at (data blocks count from 1, 0 is block 0), when one was under way.
    public var block: Int? {
        switch storage {
        case .timedOut(let block), .tooManyErrors(let block): block
        default: nil
        }
    }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// No block 0 arrived while `C` was being sent.
    public static let noSender = Self(.noSender)

    /// No byte of the next block arrived within the deadline.
    public static func timedOut(block: Int) -> Self {
        Self(.timedOut(block: block))
    }

    /// Every attempt at a block failed.
    public static func tooManyErrors(block: Int) -> Self {
        Self(.tooManyErrors(block: block))
    }

    /// Block 0's size disagrees with the size announced before the transfer.
    public static func sizeMismatch(announced: Int, header: Int) -> Self {
        Self(.sizeMismatch(announced: announced, header: header))
    }

    /// Block 0 carries no size.
    public static let sizeMissing = Self(.sizeMissing)

    /// Block 0 is empty: the sender has nothing to send.
    public static let emptyBatch = Self(.emptyBatch)

    /// The sender sent more data than block 0 announced.
    public static func tooMuchData(size: Int) -> Self {
        Self(.tooMuchData(size: size))
    }

    /// The sender started a second file; one file per batch.
    public static let moreThanOneFile = Self(.moreThanOneFile)

    /// The receiver rejected the complete file (`CAN CAN`).
    public static let rejected = Self(.rejected)

    /// The sender sent `CAN CAN`.
    public static let cancelledBySender = Self(.cancelledBySender)

    /// This side cancelled (and sent `CAN CAN`).
    public static let cancelled = Self(.cancelled)

    /// What is wrong, as a stable identifier (`no-sender`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// No block 0 arrived while `C` was being sent.
        public static let noSender = Self(rawValue: "no-sender")

        /// No byte of the next block arrived within the deadline.
        public static let timedOut = Self(rawValue: "timed-out")

        /// Every attempt at a block failed.
        public static let tooManyErrors = Self(rawValue: "too-many-errors")

        /// Block 0's size disagrees with the size announced before the transfer.
        public static let sizeMismatch = Self(rawValue: "size-mismatch")

        /// Block 0 carries no size.
        public static let sizeMissing = Self(rawValue: "size-missing")

        /// Block 0 is empty: the sender has nothing to send.
        public static let emptyBatch = Self(rawValue: "empty-batch")

        /// The sender sent more data than block 0 announced.
        public static let tooMuchData = Self(rawValue: "too-much-data")

        /// The sender started a second file; one file per batch.
        public static let moreThanOneFile = Self(rawValue: "more-than-one-file")

        /// The receiver rejected the complete file (`CAN CAN`).
        public static let rejected = Self(rawValue: "rejected")

        /// The sender sent `CAN CAN`.
        public static let cancelledBySender = Self(rawValue: "cancelled-by-sender")

        /// This side cancelled (and sent `CAN CAN`).
        public static let cancelled = Self(rawValue: "cancelled")
    }

    enum Storage: Sendable, Hashable {
        case noSender
        case timedOut(block: Int)
        case tooManyErrors(block: Int)
        case sizeMismatch(announced: Int, header: Int)
        case sizeMissing
        case emptyBatch
        case tooMuchData(size: Int)
        case moreThanOneFile
        case rejected
        case cancelledBySender
        case cancelled

        var code: Code {
            switch self {
            case .noSender: .noSender
            case .timedOut: .timedOut
            case .tooManyErrors: .tooManyErrors
            case .sizeMismatch: .sizeMismatch
            case .sizeMissing: .sizeMissing
            case .emptyBatch: .emptyBatch
            case .tooMuchData: .tooMuchData
            case .moreThanOneFile: .moreThanOneFile
            case .rejected: .rejected
            case .cancelledBySender: .cancelledBySender
            case .cancelled: .cancelled
            }
        }

        var description: String {
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
}
