/// Why a YModem transfer ended without success. Block numbers count from 1 for data
/// blocks without wrapping; 0 is block 0 (the header, or the final empty block).
public struct YModemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What ended the transfer and at which block, e.g. `block 7 was refused (NAK) 10 times`.
    public var description: String { storage.description }

    /// The block the transfer ended at (data blocks count from 1, 0 is block 0), when known.
    public var block: Int? {
        switch storage {
        case .abortedByReceiver(let block), .noAnswer(let block, _), .cancelled(let block): block
        case .tooManyNAKs(let block, _): block
        default: nil
        }
    }

    /// How many times the block was sent, for ``Code/tooManyNAKs``.
    public var attempts: Int? {
        if case .tooManyNAKs(_, let attempts) = storage { attempts } else { nil }
    }

    /// How long was waited, for ``Code/noAnswer``.
    public var waited: Duration? {
        if case .noAnswer(_, let after) = storage { after } else { nil }
    }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// The receiver sent `CAN CAN` (for the reader: 10 failed attempts at a block, no byte
    /// within 10 s, or a size that disagrees with ENTER FIRMWARE UPDATE).
    public static func abortedByReceiver(block: Int?) -> Self {
        Self(.abortedByReceiver(block: block))
    }

    /// The receiver answered `NAK` to every attempt at a block.
    public static func tooManyNAKs(block: Int, attempts: Int) -> Self {
        Self(.tooManyNAKs(block: block, attempts: attempts))
    }

    /// Nothing came within the deadline (block nil: before the transfer started, or after
    /// the end of file).
    public static func noAnswer(block: Int?, after: Duration) -> Self {
        Self(.noAnswer(block: block, after: after))
    }

    /// The receiver rejected the complete batch (`CAN CAN` after the final block 0): for the
    /// reader, the image failed its verification.
    public static let verificationFailed = Self(.verificationFailed)

    /// This side cancelled the transfer (and sent `CAN CAN`).
    public static func cancelled(block: Int?) -> Self {
        Self(.cancelled(block: block))
    }

    /// What is wrong, as a stable identifier (`aborted-by-receiver`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The receiver sent `CAN CAN` (for the reader: 10 failed attempts at a block, no byte
        /// within 10 s, or a size that disagrees with ENTER FIRMWARE UPDATE).
        public static let abortedByReceiver = Self(rawValue: "aborted-by-receiver")

        /// The receiver answered `NAK` to every attempt at a block.
        public static let tooManyNAKs = Self(rawValue: "too-many-naks")

        /// Nothing came within the deadline (block nil: before the transfer started, or after
        /// the end of file).
        public static let noAnswer = Self(rawValue: "no-answer")

        /// The receiver rejected the complete batch (`CAN CAN` after the final block 0): for the
        /// reader, the image failed its verification.
        public static let verificationFailed = Self(rawValue: "verification-failed")

        /// This side cancelled the transfer (and sent `CAN CAN`).
        public static let cancelled = Self(rawValue: "cancelled")
    }

    enum Storage: Sendable, Hashable {
        case abortedByReceiver(block: Int?)
        case tooManyNAKs(block: Int, attempts: Int)
        case noAnswer(block: Int?, after: Duration)
        case verificationFailed
        case cancelled(block: Int?)

        var code: Code {
            switch self {
            case .abortedByReceiver: .abortedByReceiver
            case .tooManyNAKs: .tooManyNAKs
            case .noAnswer: .noAnswer
            case .verificationFailed: .verificationFailed
            case .cancelled: .cancelled
            }
        }

        var description: String {
            switch self {
            case .abortedByReceiver(let block): "the receiver aborted the transfer (CAN CAN)\(at(block))"
            case .tooManyNAKs(let block, let attempts): "block \(block) was refused (NAK) \(attempts) times"
            case .noAnswer(let block, let after): "no answer within \(after)\(at(block))"
            case .verificationFailed: "the receiver rejected the image after the last block (CAN CAN)"
            case .cancelled(let block): "cancelled\(at(block))"
            }
        }
    }
}

private func at(_ block: Int?) -> String {
    block.map { " at block \($0)" } ?? ""
}
