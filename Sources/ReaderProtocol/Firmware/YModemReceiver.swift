/// The receiving side of a YModem-1K transfer in CRC mode, one file per batch, as the
/// reader runs it (documentation §7.2): a pure state machine, bytes and deadlines in,
/// actions out. The emulated reader runs it; it also receives from any YModem sender.
///
/// The flow: `C` once a second until block 0 (name and size) arrives; `ACK`, `C`; data
/// blocks 1, 2, … (wrapping after 255), each reported as ``Action/blockReceived(_:)`` for
/// the caller to ``acknowledge()`` or ``refuse()``; a repeat of the block just
/// acknowledged is acknowledged again and discarded; a damaged block (wrong number, bad
/// complement or CRC, cut short) is answered `NAK` once the line has gone quiet. The first
/// `EOT` is answered `NAK`, the second `ACK` then `C` (an `EOT` that comes before the size
/// block 0 announced is answered `NAK`, a failed attempt at the missing block); the empty
/// block 0 that ends the batch is reported as ``Action/fileReceived(name:data:)`` for the
/// caller to ``accept()`` (`ACK`) or ``reject()`` (`CAN CAN`). `CAN CAN` from the sender
/// aborts at any point.
public struct YModemReceiver: Sendable {
    /// Limits and deadlines; the defaults are the reader's (§7.2).
    public struct Configuration: Sendable, Hashable {
        /// Failed attempts at one block before the receiver gives up with `CAN CAN`.
        public var attemptsPerBlock: Int
        /// How often `C` is sent while waiting for block 0.
        public var startRequestInterval: Duration
        /// How many `C`s are sent before giving up (60, once a second: the reader's 60 s).
        public var startRequests: Int
        /// How long the receiver waits for the first byte of the next block.
        public var blockTimeout: Duration
        /// How long a block that has started may pause before it is taken as cut short.
        public var interByteTimeout: Duration
        /// How long the line must stay quiet after a damaged block before `NAK` is sent.
        public var purgeTime: Duration

        /// Limits and deadlines, by default the reader's: 10 attempts per block, `C` once a
        /// second for 60 s, 10 s for the next block, 1 s between a block's bytes, 200 ms of
        /// quiet before `NAK`. At least one attempt and one `C` are always made.
        public init(
            attemptsPerBlock: Int = 10, startRequestInterval: Duration = .seconds(1), startRequests: Int = 60,
            blockTimeout: Duration = .seconds(10), interByteTimeout: Duration = .seconds(1),
            purgeTime: Duration = .milliseconds(200)
        ) {
            self.attemptsPerBlock = max(1, attemptsPerBlock)
            self.startRequestInterval = startRequestInterval
            self.startRequests = max(1, startRequests)
            self.blockTimeout = blockTimeout
            self.interByteTimeout = interByteTimeout
            self.purgeTime = purgeTime
        }
    }

    /// What the caller does next.
    public enum Action: Sendable, Hashable {
        /// Send these bytes to the sender.
        case send([UInt8])
        /// (Re)arm the one timer: call ``deadlinePassed()`` if no byte arrives within this long.
        case armTimer(Duration)
        /// Data block `index` (1-based, not wrapped) arrived intact: answer with
        /// ``acknowledge()`` or ``refuse()``. Until then only a `CAN CAN` from the sender
        /// counts; other bytes are held, and taken after an acknowledgement (dropped after a
        /// refusal, whose block the sender sends again).
        case blockReceived(Int)
        /// The batch ended: answer with ``accept()`` or ``reject()``.
        case fileReceived(name: String, data: [UInt8])
        /// The batch was accepted (`ACK` sent).
        case finished
        /// The transfer ended without success (`CAN CAN` sent when this side gave up).
        case failed(YModemReceiverError)
    }

    /// Where the transfer is.
    public enum Phase: Sendable, Hashable {
        /// Sending `C` until block 0 (name and size) arrives.
        case waitingForHeader
        /// Block 0 acknowledged: receiving data blocks until `EOT`.
        case receivingData
        /// The first `EOT` was answered `NAK`.
        case endOfFile
        /// `C` sent after the `EOT`s: waiting for the empty block 0.
        case waitingForEndOfBatch
        /// A block or the batch waits for the caller's decision.
        case deciding
        /// The batch was accepted (`ACK` sent): the transfer is over.
        case finished
        /// The transfer ended without the file (``Action/failed(_:)`` said why).
        case failed
    }

    /// The limits and deadlines the receiver runs with.
    public let configuration: Configuration
    /// The size ENTER FIRMWARE UPDATE announced; block 0 must agree (nil: any size).
    public let expectedSize: Int?
    /// Where the transfer is now.
    public private(set) var phase: Phase = .waitingForHeader
    /// The file's name from block 0 (empty until block 0 arrives).
    public private(set) var fileName = ""
    /// The file's size in bytes from block 0 (0 until block 0 arrives).
    public private(set) var fileSize = 0
    /// Data bytes received and acknowledged (padding included until the end).
    public var receivedBytes: Int { data.count }
    /// The block reported by ``Action/blockReceived(_:)`` and not yet acknowledged or
    /// refused (nil: no block awaits a decision).
    public var blockAwaitingDecision: Int? { phase == .deciding ? nextBlockIndex : nil }

    private var data: [UInt8] = []
    private var pending: [UInt8] = []
    private var purging = false
    private var startRequestsSent = 0
    private var attempts = 0
    private var blocksAcknowledged = 0
    private var eotCount = 0
    private var lastByteWasCAN = false
    private var decidingBlock: (number: UInt8, data: ArraySlice<UInt8>)?
    /// Bytes that came while the caller decided on a block.
    private var held: [UInt8] = []
    private var decidingBatch = false
    /// The phase to return to once a decision is made.
    private var resumePhase: Phase = .receivingData

    /// A receiver for a file of `expectedSize` bytes (nil: whatever block 0 says).
    public init(expectedSize: Int? = nil, configuration: Configuration = Configuration()) {
        self.expectedSize = expectedSize
        self.configuration = configuration
    }

    /// Starts: the first `C`.
    public mutating func start() -> [Action] {
        startRequestsSent = 1
        return [.send([YModem.crcRequest]), .armTimer(configuration.startRequestInterval)]
    }

    /// This side gives up: `CAN CAN`, and the transfer fails as cancelled.
    public mutating func cancel() -> [Action] {
        guard !isOver else { return [] }
        return fail(.cancelled, sending: Self.abort)
    }

    /// Bytes from the sender, in order.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Action] {
        var actions: [Action] = []
        let bytes = Array(bytes)
        var index = 0
        while index < bytes.count, !isOver {
            if phase == .deciding {
                // While the caller decides, a CAN CAN counts at once; other bytes wait for
                // the decision (a sender that runs ahead is not cut short).
                actions += cancellation(bytes[index])
                held.append(bytes[index])
                index += 1
            } else if purging {
                break
            } else if !pending.isEmpty {
                // Inside a block: take every byte it still needs at once.
                let needed = blockLength - pending.count
                let end = min(index + needed, bytes.count)
                pending += bytes[index..<end]
                index = end
                if pending.count == blockLength { actions += completeBlock() }
            } else {
                actions += receive(bytes[index])
                index += 1
            }
        }
        if purging, !isOver { actions.append(.armTimer(configuration.purgeTime)) }
        else if !pending.isEmpty, !isOver, phase != .deciding { actions.append(.armTimer(configuration.interByteTimeout)) }
        return actions
    }

    /// The timer armed last fired.
    public mutating func deadlinePassed() -> [Action] {
        switch phase {
        case .finished, .failed, .deciding:
            return []
        case .waitingForHeader where pending.isEmpty && !purging:
            guard startRequestsSent < configuration.startRequests else {
                return fail(.noSender, sending: Self.abort)
            }
            startRequestsSent += 1
            return [.send([YModem.crcRequest]), .armTimer(configuration.startRequestInterval)]
        default:
            guard purging || !pending.isEmpty else {
                return fail(.timedOut(block: nextBlockIndex), sending: Self.abort)
            }
            // A damaged or cut-short block: the line is quiet, ask for it again.
            pending.removeAll()
            purging = false
            return refuseCurrent()
        }
    }

    /// Acknowledges the block reported by ``Action/blockReceived(_:)``.
    public mutating func acknowledge() -> [Action] {
        guard phase == .deciding, let block = decidingBlock else { return [] }
        decidingBlock = nil
        data += block.data
        blocksAcknowledged += 1
        attempts = 0
        phase = .receivingData
        let early = held
        held.removeAll()
        let acknowledged: [Action] = [.send([YModem.ack]), .armTimer(configuration.blockTimeout)]
        return early.isEmpty ? acknowledged : acknowledged + receive(early)
    }

    /// Refuses the block reported by ``Action/blockReceived(_:)`` (`NAK`: it counts as a
    /// failed attempt).
    public mutating func refuse() -> [Action] {
        guard phase == .deciding, decidingBlock != nil else { return [] }
        decidingBlock = nil
        phase = .receivingData
        // What came meanwhile belongs to the refused attempt: the sender sends it again.
        held.removeAll()
        return refuseCurrent()
    }

    /// Accepts the file reported by ``Action/fileReceived(name:data:)``: `ACK`.
    public mutating func accept() -> [Action] {
        guard phase == .deciding, decidingBatch else { return [] }
        decidingBatch = false
        phase = .finished
        return [.send([YModem.ack]), .finished]
    }

    /// Rejects the file reported by ``Action/fileReceived(name:data:)``: `CAN CAN`.
    public mutating func reject() -> [Action] {
        guard phase == .deciding, decidingBatch else { return [] }
        decidingBatch = false
        return fail(.rejected, sending: Self.abort)
    }

    // MARK: - Receiving

    private static let abort = [YModem.can, YModem.can]

    private var isOver: Bool { phase == .finished || phase == .failed }

    /// The data block expected next, 1-based, not wrapped.
    private var nextBlockIndex: Int { blocksAcknowledged + 1 }

    private mutating func cancellation(_ byte: UInt8) -> [Action] {
        guard byte == YModem.can else {
            lastByteWasCAN = false
            return []
        }
        if lastByteWasCAN { return fail(.cancelledBySender, sending: []) }
        lastByteWasCAN = true
        return []
    }

    private mutating func receive(_ byte: UInt8) -> [Action] {
        if purging { return [] }
        if byte == YModem.can {
            if lastByteWasCAN { return fail(.cancelledBySender, sending: []) }
            lastByteWasCAN = true
            return []
        }
        lastByteWasCAN = false
        switch byte {
        case YModem.soh, YModem.stx:
            pending.reserveCapacity(1029)
            pending.append(byte)
            return []
        case YModem.eot where phase == .receivingData || phase == .endOfFile:
            // Before the size block 0 announced has arrived, a block is missing (one the
            // sender believes acknowledged, or skipped): ask for it as for any unexpected
            // block, so the transfer fails rather than delivering a short file.
            guard data.count >= fileSize else { return refuseCurrent() }
            eotCount += 1
            guard eotCount >= 2 else {
                phase = .endOfFile
                return [.send([YModem.nak]), .armTimer(configuration.blockTimeout)]
            }
            phase = .waitingForEndOfBatch
            return [.send([YModem.ack, YModem.crcRequest]), .armTimer(configuration.blockTimeout)]
        case YModem.eot where phase == .waitingForEndOfBatch:
            // Our ACK was lost: say it again.
            return [.send([YModem.ack, YModem.crcRequest]), .armTimer(configuration.blockTimeout)]
        default:
            return []  // noise between blocks
        }
    }

    /// The length of the block being assembled, header and CRC included.
    private var blockLength: Int { YModem.blockLength(startingWith: pending.first ?? YModem.soh) }

    private mutating func completeBlock() -> [Action] {
        let size = blockLength - 5
        let block = pending
        pending.removeAll()
        let number = block[1]
        let payload = block[3..<(3 + size)]
        let crc = UInt16(block[size + 3]) << 8 | UInt16(block[size + 4])
        guard block[2] == ~number, CRC16(.xmodem).checksum(payload) == crc else {
            purging = true
            return []
        }
        return handleBlock(number: number, payload: payload)
    }

    private mutating func handleBlock(number: UInt8, payload: ArraySlice<UInt8>) -> [Action] {
        switch phase {
        case .waitingForHeader where number == 0:
            return header(payload)
        case .receivingData where number == 0 && blocksAcknowledged == 0:
            // The ACK of block 0 was lost.
            return [.send([YModem.ack, YModem.crcRequest]), .armTimer(configuration.blockTimeout)]
        case .receivingData where number == UInt8(truncatingIfNeeded: nextBlockIndex):
            guard data.count + payload.count <= fileSize + 1024 else {
                return fail(.tooMuchData(size: fileSize), sending: Self.abort)
            }
            phase = .deciding
            decidingBlock = (number, payload)
            return [.blockReceived(nextBlockIndex)]
        case .receivingData where number == UInt8(truncatingIfNeeded: blocksAcknowledged) && blocksAcknowledged > 0:
            return [.send([YModem.ack]), .armTimer(configuration.blockTimeout)]
        case .waitingForEndOfBatch where number == 0:
            guard payload.first == 0 else { return fail(.moreThanOneFile, sending: Self.abort) }
            phase = .deciding
            decidingBatch = true
            return [.fileReceived(name: fileName, data: Array(data.prefix(fileSize)))]
        default:
            return refuseCurrent()
        }
    }

    private mutating func header(_ payload: ArraySlice<UInt8>) -> [Action] {
        let fields = payload.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        guard let nameBytes = fields.first, !nameBytes.isEmpty else {
            return fail(.emptyBatch, sending: Self.abort)
        }
        let sizeDigits = (fields.count > 1 ? fields[1] : []).prefix { (0x30...0x39).contains($0) }
        guard !sizeDigits.isEmpty, sizeDigits.count <= 9,
            let size = Int(String(decoding: sizeDigits, as: UTF8.self))
        else {
            return fail(.sizeMissing, sending: Self.abort)
        }
        if let expectedSize, size != expectedSize {
            return fail(.sizeMismatch(announced: expectedSize, header: size), sending: Self.abort)
        }
        fileName = String(decoding: nameBytes, as: UTF8.self)
        fileSize = size
        data.reserveCapacity(size + 1024)
        phase = .receivingData
        attempts = 0
        return [.send([YModem.ack, YModem.crcRequest]), .armTimer(configuration.blockTimeout)]
    }

    /// `NAK` for the block expected, or `CAN CAN` when its attempts are spent.
    private mutating func refuseCurrent() -> [Action] {
        attempts += 1
        guard attempts < configuration.attemptsPerBlock else {
            return fail(.tooManyErrors(block: phase == .waitingForHeader ? 0 : nextBlockIndex), sending: Self.abort)
        }
        return [.send([YModem.nak]), .armTimer(configuration.blockTimeout)]
    }

    private mutating func fail(_ error: YModemReceiverError, sending bytes: [UInt8]) -> [Action] {
        phase = .failed
        pending.removeAll()
        data.removeAll()
        return (bytes.isEmpty ? [] : [.send(bytes)]) + [.failed(error)]
    }
}
