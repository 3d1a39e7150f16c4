/// The host's side of a YModem-1K transfer in CRC mode, one file per batch (reader
/// documentation §7.2), as a pure state machine: bytes and deadlines in, actions out. It
/// does no I/O and keeps no clock: the caller writes what ``Action/send(_:)`` holds (in
/// pieces of the link's size), arms a timer on ``Action/awaitAnswer(within:)`` once the
/// write has finished, and reports what the receiver sends (``receive(_:)``) and when the
/// timer fires (``deadlinePassed()``).
///
/// The flow: the receiver's `C`; block 0 (name and size) until `ACK`, then `C`; data blocks
/// 1, 2, … (wrapping after 255), each until `ACK`; `EOT` until `ACK` (the reader answers the
/// first `NAK`, a receiver that answers `ACK` at once is accepted too), then `C`; the empty
/// block 0, whose `ACK` ends the batch. Two consecutive `CAN`s abort at any point. Bytes
/// that mean nothing in the current state (a `C` repeated while a block is in flight, line
/// noise) are ignored.
///
/// What a receiver's Bluetooth stack may do to its answers, and how the sender copes:
/// - The `C` that follows an `ACK` (after block 0, after the last `EOT`) may arrive before
///   that `ACK` when the two travel in separate notifications over different ATT bearers:
///   it is kept and counts once the `ACK` arrives. If the `ACK` comes and no `C` follows
///   within the answer time, the sender goes on as if it had (the receiver that
///   acknowledged is waiting for the next block).
///
/// Recovery converges: after a refusal (`NAK`, or `C` after the first data block, as a
/// receiver asks for that block again) the sender writes nothing until the line has been
/// quiet for ``Configuration/quietPeriod``, or less when the caller knows its link needs
/// less (``isWaitingForQuiet``) (each byte from the receiver starts the wait
/// again, and further `NAK`s in it cost no attempt), so a receiver that took part of a
/// block for noise has discarded it; then the whole block goes again. A silent deadline
/// resends at once. A 1024-byte block refused ``Configuration/largeBlockAttempts`` times is
/// sent again, with everything after it, in 128-byte blocks from the same block number: a
/// receiver whose buffer overflows on a whole block (a UART behind the radio) still gets
/// the file. Only after a refusal and with no `ACK` since the block was first sent: a
/// receiver that already holds the large block would take the first small one for a repeat
/// and the next for new data. No block number ever carries other data than the receiver
/// may hold under it, so whatever the link does, a file the receiver takes is the file.
public struct YModemSender: Sendable {
    /// Limits and deadlines; the defaults are the reader's (§7.2, §8).
    public struct Configuration: Sendable, Hashable {
        /// Attempts at one block (its first sending included) before giving up.
        public var attemptsPerBlock: Int
        /// How long the receiver may take to send its first `C`.
        public var startTimeout: Duration
        /// How long an `ACK`/`NAK` may take after a block's last byte.
        public var answerTimeout: Duration
        /// How long the reader may take to verify the image after the final block 0.
        public var verificationTimeout: Duration
        /// How long the line must stay quiet after a `NAK` before the block is sent again, at
        /// most (``YModemSender/isWaitingForQuiet``).
        public var quietPeriod: Duration
        /// Failed attempts at a 1024-byte block before the rest of the file goes in 128-byte
        /// blocks.
        public var largeBlockAttempts: Int

        /// Limits and deadlines, by default the reader's: 10 attempts per block, 60 s for the
        /// first `C`, 2 s per answer, 10 s for verification; 1 s of quiet before a resend
        /// after `NAK` (XMODEM practice), 128-byte blocks after 2 failed attempts at a
        /// 1024-byte one. At least one attempt is always made.
        public init(
            attemptsPerBlock: Int = 10, startTimeout: Duration = .seconds(60), answerTimeout: Duration = .seconds(2),
            verificationTimeout: Duration = .seconds(10), quietPeriod: Duration = .seconds(1), largeBlockAttempts: Int = 2
        ) {
            self.attemptsPerBlock = max(1, attemptsPerBlock)
            self.startTimeout = startTimeout
            self.answerTimeout = answerTimeout
            self.verificationTimeout = verificationTimeout
            self.quietPeriod = quietPeriod
            self.largeBlockAttempts = max(1, largeBlockAttempts)
        }
    }

    /// What the caller does next.
    public enum Action: Sendable, Hashable {
        /// Write these bytes to the receiver.
        case send([UInt8])
        /// (Re)arm the one timer: call ``deadlinePassed()`` if nothing ends the wait within
        /// this long after the last write finished (or after now, when nothing is written).
        case awaitAnswer(within: Duration)
        /// The receiver accepted the whole batch (for the reader: the image verified).
        case finished
        /// The transfer ended without success.
        case failed(YModemError)
    }

    /// Where the transfer is.
    public enum Phase: Sendable, Hashable {
        /// Waiting for the receiver's first `C`.
        case waitingForReceiver
        /// Block 0 sent, waiting for its `ACK`, then for `C`.
        case header
        /// Data block `index` (1-based, not wrapped) in flight.
        case data(block: Int)
        /// `EOT` sent, waiting for `ACK` (after a `NAK`), then `C`.
        case endOfFile
        /// The final empty block 0 sent; the receiver verifies.
        case verifying
        /// The receiver acknowledged the final empty block 0: the transfer is over.
        case finished
        /// The transfer ended without success (``Action/failed(_:)`` said why).
        case failed
    }

    /// The limits and deadlines the sender runs with.
    public let configuration: Configuration
    /// The file's size in bytes.
    public let totalBytes: Int
    /// The current phase.
    public private(set) var phase: Phase = .waitingForReceiver
    /// Data bytes the receiver has acknowledged.
    public private(set) var acknowledgedBytes = 0
    /// The data block size: 1024 bytes, 128 once a large block has failed too often.
    public private(set) var blockSize = 1024
    /// Blocks (block 0 and `EOT` included) sent again after a `NAK` or a silent deadline.
    public private(set) var resentBlocks = 0

    private let file: [UInt8]
    private let header: [UInt8]
    private var attempts = 0
    private var headerAcknowledged = false
    private var eotAcknowledged = false
    private var eotSent = 0
    private var offset = 0
    private var blockIndex = 0
    private var lastByteWasCAN = false
    private var currentBlock: [UInt8] = []
    /// The `C` that should follow the next `ACK` came first.
    private var crcRequestBeforeACK = false
    /// A `NAK` came: the block goes again once the line has been quiet.
    private var resendWhenQuiet = false
    /// Copies of the block in flight sent after a silent deadline: the receiver may answer
    /// each (a late `ACK` is not a lost one), so after the block's `ACK` as many more are
    /// ignored, rather than taken for the next block's.
    private var resentAfterDeadline = 0
    private var staleACKs = 0
    /// An ACK (taken or ignored as stale) came since the block in flight was first sent:
    /// the receiver may hold it, so its number must not carry other data.
    private var acknowledgementSeen = false

    /// A sender for `file`, announced in block 0 as `fileName` (at most 100 bytes of it).
    public init(fileName: String, file: [UInt8], configuration: Configuration = Configuration()) {
        self.file = file
        self.configuration = configuration
        totalBytes = file.count
        header = YModem.header(fileName: fileName, size: file.count)
    }

    /// Starts: wait for the receiver's `C`.
    public mutating func start() -> [Action] {
        phase = .waitingForReceiver
        return [.awaitAnswer(within: configuration.startTimeout)]
    }

    /// The caller gives up: `CAN CAN` to the receiver, and the transfer fails as cancelled.
    public mutating func cancel() -> [Action] {
        guard !isOver else { return [] }
        return fail(.cancelled(block: blockNumberForErrors), sending: [YModem.can, YModem.can])
    }

    /// Bytes from the receiver, in order.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Action] {
        var actions: [Action] = []
        var heard = false
        for byte in bytes {
            guard !isOver else { break }
            heard = true
            actions += receive(byte)
        }
        // Any byte while a resend waits for quiet starts the wait again.
        if heard, resendWhenQuiet, !isOver, !actions.contains(where: \.isSend) {
            actions.append(.awaitAnswer(within: configuration.quietPeriod))
        }
        return actions
    }

    /// The timer armed by the last ``Action/awaitAnswer(within:)`` fired.
    public mutating func deadlinePassed() -> [Action] {
        if resendWhenQuiet, !isOver {
            resendWhenQuiet = false
            return resend(failure: .tooManyNAKs(block: blockNumberForErrors ?? 0, attempts: attempts), refused: true)
        }
        switch phase {
        case .waitingForReceiver:
            return fail(.noAnswer(block: nil, after: configuration.startTimeout))
        case .header where headerAcknowledged:
            // The ACK came, its C did not: the receiver is waiting for block 1.
            return nextDataBlock()
        case .endOfFile where eotAcknowledged:
            return endBatch()
        case .header, .data, .endOfFile:
            resentAfterDeadline += 1
            return resend(failure: .noAnswer(block: blockNumberForErrors, after: configuration.answerTimeout))
        case .verifying:
            return fail(.noAnswer(block: 0, after: configuration.verificationTimeout))
        case .finished, .failed:
            return []
        }
    }

    // MARK: - Receiving

    private var isOver: Bool { phase == .finished || phase == .failed }

    /// Whether the wait armed last is the quiet after a refusal, before the block goes
    /// again: a caller that knows how long its link takes to carry an answer may wait that
    /// much instead (``Configuration/quietPeriod`` is the longest it waits).
    public var isWaitingForQuiet: Bool { resendWhenQuiet && !isOver }

    private var blockNumberForErrors: Int? {
        switch phase {
        case .header, .verifying: 0
        case .data(let block): block
        default: nil
        }
    }

    private mutating func receive(_ byte: UInt8) -> [Action] {
        if byte == YModem.can {
            if lastByteWasCAN {
                return fail(phase == .verifying ? .verificationFailed : .abortedByReceiver(block: blockNumberForErrors))
            }
            lastByteWasCAN = true
            return []
        }
        lastByteWasCAN = false
        switch (phase, byte) {
        case (.waitingForReceiver, YModem.crcRequest):
            phase = .header
            return sendBlock(header)
        case (.header, YModem.ack) where staleACKs > 0, (.data, YModem.ack) where staleACKs > 0,
            (.endOfFile, YModem.ack) where staleACKs > 0 && !eotAcknowledged, (.verifying, YModem.ack) where staleACKs > 0:
            staleACKs -= 1
            acknowledgementSeen = true
            return []
        case (.header, YModem.ack) where !headerAcknowledged:
            headerAcknowledged = true
            resendWhenQuiet = false
            staleACKs = resentAfterDeadline
            return crcRequestBeforeACK ? nextDataBlock() : [.awaitAnswer(within: configuration.answerTimeout)]
        case (.header, YModem.crcRequest) where headerAcknowledged:
            return nextDataBlock()
        case (.header, YModem.crcRequest):
            // The C that follows the ACK, delivered first.
            crcRequestBeforeACK = true
            return []
        case (.endOfFile, YModem.crcRequest) where !eotAcknowledged:
            crcRequestBeforeACK = true
            return []
        case (.data, YModem.ack):
            acknowledgedBytes = min(offset, totalBytes)
            staleACKs = resentAfterDeadline
            return nextDataBlock()
        case (.endOfFile, YModem.nak) where !eotAcknowledged && eotSent == 1:
            return sendEOT()
        case (.endOfFile, YModem.ack) where !eotAcknowledged:
            eotAcknowledged = true
            resendWhenQuiet = false
            staleACKs = resentAfterDeadline
            return crcRequestBeforeACK ? endBatch() : [.awaitAnswer(within: configuration.answerTimeout)]
        case (.endOfFile, YModem.crcRequest) where eotAcknowledged:
            return endBatch()
        case (.verifying, YModem.ack):
            phase = .finished
            return [.finished]
        case (.header, YModem.nak) where !headerAcknowledged, (.data, YModem.nak), (.endOfFile, YModem.nak),
            (.verifying, YModem.nak), (.data(block: 1), YModem.crcRequest):
            // A refusal (a receiver asks for the first data block again with C): send the
            // block again once the receiver has discarded what it took for noise.
            resendWhenQuiet = true
            return []
        default:
            return []
        }
    }

    // MARK: - Sending

    private mutating func nextDataBlock() -> [Action] {
        guard offset < totalBytes else { return sendEOT() }
        let count = min(blockSize, totalBytes - offset)
        blockIndex += 1
        phase = .data(block: blockIndex)
        let block = YModem.block(number: UInt8(truncatingIfNeeded: blockIndex), data: file[offset..<(offset + count)])
        offset += count
        return sendBlock(block)
    }

    private mutating func sendBlock(_ block: [UInt8]) -> [Action] {
        attempts = 1
        resentAfterDeadline = 0
        acknowledgementSeen = false
        resendWhenQuiet = false
        crcRequestBeforeACK = false
        currentBlock = block
        return [.send(block), .awaitAnswer(within: configuration.answerTimeout)]
    }

    private mutating func sendEOT() -> [Action] {
        if phase != .endOfFile {
            phase = .endOfFile
            eotSent = 0
            attempts = 0
            resentAfterDeadline = 0
        }
        eotSent += 1
        attempts += 1
        currentBlock = [YModem.eot]
        return [.send(currentBlock), .awaitAnswer(within: configuration.answerTimeout)]
    }

    /// The empty block 0 that ends the batch; the receiver then verifies.
    private mutating func endBatch() -> [Action] {
        phase = .verifying
        attempts = 1
        resendWhenQuiet = false
        currentBlock = YModem.endOfBatch
        return [.send(currentBlock), .awaitAnswer(within: configuration.verificationTimeout)]
    }

    /// Sends the block in flight again, or fails with `failure` when its attempts are spent.
    /// `refused`: the attempt ended in a refusal (`NAK`), not in silence.
    private mutating func resend(failure: YModemError, refused: Bool = false) -> [Action] {
        if case .data = phase, blockSize > 128, currentBlock.count > 133, attempts >= configuration.largeBlockAttempts,
            refused, !acknowledgementSeen
        {
            // The same data again, from the same block number on, in 128-byte blocks. Only
            // when the receiver has refused the block and acknowledged nothing since it was
            // first sent: one that holds it would take the first small block for a repeat
            // and the next for new data.
            blockSize = 128
            offset = acknowledgedBytes
            blockIndex -= 1
            resentBlocks += 1
            return nextDataBlock()
        }
        guard attempts < configuration.attemptsPerBlock else {
            if case .tooManyNAKs(let block, _) = failure.storage {
                return fail(.tooManyNAKs(block: block, attempts: attempts), sending: [YModem.can, YModem.can])
            }
            return fail(failure, sending: [YModem.can, YModem.can])
        }
        attempts += 1
        resentBlocks += 1
        let timeout = phase == .verifying ? configuration.verificationTimeout : configuration.answerTimeout
        return [.send(currentBlock), .awaitAnswer(within: timeout)]
    }

    private mutating func fail(_ error: YModemError, sending bytes: [UInt8] = []) -> [Action] {
        phase = .failed
        return (bytes.isEmpty ? [] : [.send(bytes)]) + [.failed(error)]
    }
}

extension YModemSender.Action {
    var isSend: Bool {
        if case .send = self { true } else { false }
    }
}
