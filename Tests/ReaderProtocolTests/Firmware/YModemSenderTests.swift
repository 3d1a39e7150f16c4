import ReaderProtocol
import Testing

/// The YModem-1K sender against every reply sequence the reader documentation §7.2 allows,
/// and some it does not. Block bytes are checked against the documentation's layout and
/// against Python's `binascii.crc_hqx` (CRC-16/XMODEM) where a CRC is named.
@Suite struct YModemSenderTests {
    typealias Action = YModemSender.Action
    let ack = YModem.ack, nak = YModem.nak, c = YModem.crcRequest, can = YModem.can, eot = YModem.eot

    /// The bytes of every `.send` in `actions`.
    func sent(_ actions: [Action]) -> [[UInt8]] {
        actions.compactMap { if case .send(let bytes) = $0 { bytes } else { nil } }
    }

    func failure(_ actions: [Action]) -> YModemError? {
        actions.lazy.compactMap { if case .failed(let error) = $0 { error } else { nil } }.first
    }

    @Test func blocksFollowTheDocumentedLayout() {
        let data = (0..<128).map(UInt8.init)
        let block = YModem.block(number: 1, data: data)
        #expect(Array(block.prefix(3)) == [0x01, 0x01, 0xFE])
        #expect(Array(block[3..<131]) == data)
        #expect(Array(block.suffix(2)) == [0xE8, 0x0A])  // binascii.crc_hqx(bytes(range(128)), 0) = 0xe80a
        let long = YModem.block(number: 0xFF, data: [1, 2, 3] + [UInt8](repeating: 9, count: 200))
        #expect(long.count == 1029)
        #expect(Array(long.prefix(3)) == [0x02, 0xFF, 0x00])
        #expect(long[3 + 203] == 0x1A && long[3 + 1023] == 0x1A)  // padded with 1A
        let header = YModem.header(fileName: "vpos.vfw", size: 3028)
        #expect(Array(header.prefix(3)) == [0x01, 0x00, 0xFF])
        #expect(Array(header[3..<16]) == Array("vpos.vfw\u{0}3028".utf8))  // name, NUL, size in decimal
        #expect(header[16..<131].allSatisfy { $0 == 0 })
        #expect(Array(YModem.endOfBatch.prefix(131)) == [0x01, 0x00, 0xFF] + [UInt8](repeating: 0, count: 128))
    }

    /// The documented happy path for a 2,100-byte file: two 1 KiB blocks and a 128-byte
    /// block, the reader's NAK to the first EOT, and its ACK to the final block 0.
    @Test func aWholeTransferAsTheReaderAnswers() {
        let file = (0..<2100).map { UInt8(truncatingIfNeeded: $0 * 31) }
        var sender = YModemSender(fileName: "image.vfw", file: file)
        #expect(sender.start() == [.awaitAnswer(within: .seconds(60))])
        let header = sent(sender.receive([c]))
        #expect(header == [YModem.header(fileName: "image.vfw", size: 2100)])
        #expect(sender.receive([ack]) == [.awaitAnswer(within: .seconds(2))])
        var blocks: [[UInt8]] = sent(sender.receive([c]))
        blocks += sent(sender.receive([ack]))
        #expect(sender.acknowledgedBytes == 1024)
        blocks += sent(sender.receive([ack]))
        #expect(blocks.map(\.count) == [1029, 1029, 133])
        #expect(blocks.map { $0[1] } == [1, 2, 3])
        #expect(blocks.flatMap { Array($0[3..<($0.count - 2)]) }.prefix(2100).elementsEqual(file))
        #expect(sent(sender.receive([ack])) == [[eot]])
        #expect(sender.acknowledgedBytes == 2100)
        #expect(sent(sender.receive([nak])) == [[eot]])
        #expect(sender.receive([ack]) == [.awaitAnswer(within: .seconds(2))])
        #expect(sender.receive([c]) == [.send(YModem.endOfBatch), .awaitAnswer(within: .seconds(10))])
        #expect(sender.phase == .verifying)
        #expect(sender.receive([ack]) == [.finished])
        #expect(sender.phase == .finished)
    }

    @Test func anEOTAcknowledgedAtOnceIsAcceptedAndStrayBytesAreIgnored() {
        var sender = YModemSender(fileName: "f", file: [1, 2, 3])
        _ = sender.start()
        _ = sender.receive([0x00, c])           // noise before the first C
        _ = sender.receive([ack, c, 0x55])      // ACK and C together, then noise
        #expect(sender.phase == .data(block: 1))
        #expect(sent(sender.receive([ack])) == [[eot]])
        _ = sender.receive([ack, c])
        #expect(sender.receive([ack]) == [.finished])
    }

    /// A NAK sends nothing at once: the block goes again, whole, once the line has been
    /// quiet for the quiet period (XMODEM practice: the receiver discards what it took for
    /// noise meanwhile). Bytes in the wait start it again and more NAKs cost no attempt.
    @Test func aNAKResendsTheSameBlockOnceTheLineIsQuiet() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 7, count: 3000))
        _ = sender.start()
        _ = sender.receive([c, ack])
        let first = sent(sender.receive([c]))
        #expect(sender.receive([nak]) == [.awaitAnswer(within: .seconds(1))])
        #expect(sender.receive([0x55, nak]) == [.awaitAnswer(within: .seconds(1))])  // noise and a second NAK
        #expect(sent(sender.deadlinePassed()) == first)
        #expect(sender.resentBlocks == 1)
        _ = sender.receive([ack])
        #expect(sender.phase == .data(block: 2))
        #expect(sender.acknowledgedBytes == 1024)
    }

    /// An ACK in the quiet wait (the NAK was for line noise ahead of the block) takes the
    /// block as received: nothing is sent again.
    @Test func anACKInTheQuietWaitAcknowledgesTheBlock() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 7, count: 3000))
        _ = sender.start()
        _ = sender.receive([c, ack, c])
        _ = sender.receive([nak])
        let next = sent(sender.receive([ack]))
        #expect(next.map { $0[1] } == [2])
        #expect(sender.resentBlocks == 0)
    }

    @Test func tenRefusalsOfA128ByteBlockGiveUpWithCAN() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 7, count: 100))
        _ = sender.start()
        _ = sender.receive([c, ack])
        let first = sent(sender.receive([c]))
        #expect(first.map(\.count) == [133])
        var last: [Action] = []
        for _ in 0..<9 {
            _ = sender.receive([nak])
            last = sender.deadlinePassed()
            #expect(sent(last) == first)
        }
        _ = sender.receive([nak])
        let end = sender.deadlinePassed()
        #expect(sent(end) == [[can, can]])
        #expect(failure(end) == .tooManyNAKs(block: 1, attempts: 10))
        #expect(sender.receive([ack]).isEmpty)  // over
    }

    /// Two refused attempts at a 1024-byte block (a receiver whose buffer overflows on a
    /// whole block): the same data goes again from the same block number in 128-byte
    /// blocks, and so does the rest of the file. Silence alone never splits a block (the
    /// receiver may hold it).
    @Test func aLargeBlockRefusedTwiceGoesAgainIn128ByteBlocks() {
        let file = (0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var sender = YModemSender(fileName: "f", file: file)
        _ = sender.start()
        _ = sender.receive([c, ack])
        #expect(sent(sender.receive([c])).map(\.count) == [1029])
        #expect(sent(sender.deadlinePassed()).map(\.count) == [1029])  // silence
        #expect(sent(sender.deadlinePassed()).map(\.count) == [1029])  // silence again: still 1 KiB
        _ = sender.receive([nak])
        var blocks = sent(sender.deadlinePassed())  // refused, then quiet
        #expect(sender.blockSize == 128)
        while case .data = sender.phase { blocks += sent(sender.receive([ack])) }
        blocks.removeLast()  // EOT
        // SOH blocks numbered 1, 2, …, 12 carrying the file in order (1500 = 11 × 128 + 92).
        #expect(blocks.allSatisfy { $0.count == 133 && $0[0] == YModem.soh })
        #expect(blocks.map { Int($0[1]) } == Array(1...12))
        #expect(blocks.flatMap { $0[3..<131] }.prefix(1500).elementsEqual(file))
        #expect(sender.acknowledgedBytes == 1500)
    }

    /// A C after the first data block is the receiver asking for it again (lrzsz's rb
    /// answers a damaged first block so): a refusal, resent once the line is quiet.
    @Test func aCAfterTheFirstDataBlockAsksForItAgain() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 3, count: 2000))
        _ = sender.start()
        _ = sender.receive([c, ack])
        let first = sent(sender.receive([c]))
        #expect(sender.receive([c]) == [.awaitAnswer(within: .seconds(1))])
        #expect(sent(sender.deadlinePassed()) == first)
        _ = sender.receive([ack])
        #expect(sender.receive([c]).isEmpty)    // a C during block 2 means nothing
        #expect(sender.phase == .data(block: 2))
    }

    /// A block resent after silence whose earlier copy the receiver then acknowledges (late,
    /// or as a repeat) may be held by the receiver: when it is refused next, it goes again
    /// in 1 KiB, never as 128-byte blocks under the same number (the receiver would take the
    /// first for a repeat of the block it holds and the second for the next block's data).
    @Test func aBlockTheReceiverMayHoldIsNeverSplitUnderItsNumber() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 5, count: 4000))
        _ = sender.start()
        _ = sender.receive([c, ack, c])           // block 1 leaves
        _ = sender.deadlinePassed()               // silence: block 1 again
        _ = sender.receive([ack])                 // block 1 acknowledged: block 2 leaves
        #expect(sender.receive([ack]).isEmpty)    // taken as the late answer to block 1's copy
        _ = sender.receive([nak])
        let again = sent(sender.deadlinePassed())
        #expect(again.map(\.count) == [1029])    // not split: an ACK came during block 2
        #expect(again.first?[1] == 2)
        #expect(sender.blockSize == 1024)
    }

    /// Over several ATT bearers, the C that follows an ACK can arrive first: after block 0
    /// and after the last EOT, it counts once the ACK comes.
    @Test func aCBeforeItsACKCountsWhenTheACKComes() {
        var sender = YModemSender(fileName: "f", file: [1, 2, 3])
        _ = sender.start()
        _ = sender.receive([c])                           // block 0 leaves
        #expect(sender.receive([c]).isEmpty)              // its C, ahead of the ACK
        #expect(sent(sender.receive([ack])).map { $0[1] } == [1])
        #expect(sent(sender.receive([ack])) == [[eot]])
        #expect(sent(sender.receive([nak])) == [[eot]])
        #expect(sender.receive([c]).isEmpty)
        #expect(sent(sender.receive([ack])) == [YModem.endOfBatch])
        #expect(sender.receive([ack]) == [.finished])
    }

    /// An ACK whose C never comes: after the answer time the sender goes on, since the
    /// receiver that acknowledged waits for the next block.
    @Test func anACKWithoutItsCGoesOnAfterTheAnswerTime() {
        var sender = YModemSender(fileName: "f", file: [1, 2, 3])
        _ = sender.start()
        _ = sender.receive([c, ack])
        #expect(sent(sender.deadlinePassed()).map { $0[1] } == [1])
        _ = sender.receive([ack, nak, ack])
        #expect(sent(sender.deadlinePassed()) == [YModem.endOfBatch])
    }

    @Test func silenceResendsUntilTheAttemptsRunOut() {
        var sender = YModemSender(
            fileName: "f", file: [1], configuration: .init(attemptsPerBlock: 3, answerTimeout: .milliseconds(500)))
        _ = sender.start()
        _ = sender.receive([c, ack, c])
        #expect(sent(sender.deadlinePassed()).count == 1)
        #expect(sent(sender.deadlinePassed()).count == 1)
        let end = sender.deadlinePassed()
        #expect(failure(end) == .noAnswer(block: 1, after: .milliseconds(500)))
        #expect(sent(end) == [[can, can]])
    }

    @Test func noReceiverAtAllIsANoAnswerBeforeTheTransfer() {
        var sender = YModemSender(fileName: "f", file: [1])
        _ = sender.start()
        #expect(failure(sender.deadlinePassed()) == .noAnswer(block: nil, after: .seconds(60)))
    }

    /// A block resent after a silent deadline may be acknowledged twice (the first ACK was
    /// late, not lost): the second ACK must not be taken for the next block's.
    @Test func aLateACKIsNotTakenForTheNextBlocks() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 1, count: 2048))
        _ = sender.start()
        _ = sender.receive([c, ack, c])          // block 1 in flight
        _ = sender.deadlinePassed()              // resent
        _ = sender.receive([ack])                // the late ACK of the first copy: block 2 leaves
        #expect(sender.phase == .data(block: 2))
        _ = sender.receive([ack])                // the ACK of the second copy of block 1
        #expect(sender.phase == .data(block: 2))
        #expect(sender.acknowledgedBytes == 1024)
        #expect(sent(sender.receive([ack])) == [[eot]])  // block 2's own ACK
    }

    @Test func canCanAbortsAndALoneCANIsNoise() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 1, count: 4096))
        _ = sender.start()
        _ = sender.receive([c, ack, c, ack, ack])
        #expect(sender.phase == .data(block: 3))
        #expect(sender.receive([can, 0x00]).isEmpty)
        #expect(sender.phase == .data(block: 3))
        #expect(failure(sender.receive([can, can])) == .abortedByReceiver(block: 3))
        #expect(sender.phase == .failed)
    }

    @Test func canCanAfterTheFinalBlockZeroIsAFailedVerification() {
        var sender = YModemSender(fileName: "f", file: [1])
        _ = sender.start()
        _ = sender.receive([c, ack, c, ack, nak, ack, c])
        #expect(sender.phase == .verifying)
        #expect(failure(sender.receive([can, can])) == .verificationFailed)
    }

    @Test func cancellingSendsCANCANOnce() {
        var sender = YModemSender(fileName: "f", file: [1, 2])
        _ = sender.start()
        _ = sender.receive([c, ack, c])
        let cancelled = sender.cancel()
        #expect(sent(cancelled) == [[can, can]])
        #expect(failure(cancelled) == .cancelled(block: 1))
        #expect(sender.cancel().isEmpty)
    }

    @Test func blockNumbersWrapAfter255() {
        var sender = YModemSender(fileName: "f", file: [UInt8](repeating: 0, count: 257 * 1024))
        _ = sender.start()
        _ = sender.receive([c, ack])
        var numbers: [UInt8] = sent(sender.receive([c])).map { $0[1] }
        for _ in 1..<257 { numbers += sent(sender.receive([ack])).map { $0[1] } }
        #expect(numbers.count == 257)
        #expect(numbers[254] == 255 && numbers[255] == 0 && numbers[256] == 1)
    }
}
