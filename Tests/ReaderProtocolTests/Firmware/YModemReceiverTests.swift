import ReaderProtocol
import TestEnvironment
import Testing

/// The YModem-1K receiver as the reader documentation §7.2 describes the reader's side:
/// driven with blocks built by hand from the documented layout, and end to end against
/// the sender (whose own agreement with lrzsz's `rb` is in `LrzszInteropTests`).
@Suite struct YModemReceiverTests {
    typealias Action = YModemReceiver.Action
    let ack = YModem.ack, nak = YModem.nak, c = YModem.crcRequest, can = YModem.can, eot = YModem.eot

    func sent(_ actions: [Action]) -> [UInt8] {
        actions.flatMap { action -> [UInt8] in if case .send(let bytes) = action { bytes } else { [] } }
    }

    func failure(_ actions: [Action]) -> YModemReceiverError? {
        actions.lazy.compactMap { if case .failed(let error) = $0 { error } else { nil } }.first
    }

    /// A 1 KiB block, with its CRC-16/XMODEM computed here bit by bit from the documented
    /// polynomial (0x1021, init 0), not with the package's table.
    func block(_ number: UInt8, _ data: [UInt8], size: Int = 1024) -> [UInt8] {
        let padded = data + [UInt8](repeating: 0x1A, count: size - data.count)
        var crc: UInt16 = 0
        for byte in padded {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1 }
        }
        return [size == 1024 ? 0x02 : 0x01, number, ~number] + padded + [UInt8(crc >> 8), UInt8(crc & 0xFF)]
    }

    func header(_ text: String) -> [UInt8] {
        var data = Array(text.utf8)
        data += [UInt8](repeating: 0, count: 128 - data.count)
        return [0x01, 0x00, 0xFF] + data + crcBytes(data)
    }

    func crcBytes(_ data: [UInt8]) -> [UInt8] {
        var crc: UInt16 = 0
        for byte in data {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1 }
        }
        return [UInt8(crc >> 8), UInt8(crc & 0xFF)]
    }

    /// The documented flow for a 1,100-byte file in 20-byte pieces: C, block 0 (ACK C),
    /// blocks 1 and 2 (ACK each), EOT (NAK), EOT (ACK C), empty block 0, then the decision.
    @Test func theDocumentedFlowInTwentyBytePieces() {
        let file = (0..<1100).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var receiver = YModemReceiver(expectedSize: 1100)
        #expect(sent(receiver.start()) == [c])
        /// What the receiver does with `bytes`, but for re-arming its timer after each piece.
        func feed(_ bytes: [UInt8]) -> [Action] {
            stride(from: 0, to: bytes.count, by: 20).flatMap { receiver.receive(bytes[$0..<min($0 + 20, bytes.count)]) }
                .filter { if case .armTimer = $0 { false } else { true } }
        }
        #expect(sent(feed(header("image.vfw\u{0}1100 0 100644"))) == [ack, c])
        #expect(receiver.fileName == "image.vfw" && receiver.fileSize == 1100)
        #expect(feed(block(1, Array(file[..<1024]))) == [.blockReceived(1)])
        #expect(sent(receiver.acknowledge()) == [ack])
        #expect(feed(block(2, Array(file[1024...]), size: 128)) == [.blockReceived(2)])
        #expect(sent(receiver.acknowledge()) == [ack])
        #expect(sent(feed([eot])) == [nak])
        #expect(sent(feed([eot])) == [ack, c])
        #expect(feed(header("")) == [.fileReceived(name: "image.vfw", data: file)])
        #expect(receiver.accept() == [.send([ack]), .finished])
        #expect(receiver.phase == .finished)
    }

    @Test func aRepeatOfTheBlockJustAcknowledgedIsAcknowledgedAndDiscarded() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        _ = receiver.receive(header("f\u{0}2048"))
        #expect(receiver.receive(block(1, [1])) == [.blockReceived(1)])
        _ = receiver.acknowledge()
        #expect(sent(receiver.receive(block(1, [1]))) == [ack])
        #expect(receiver.receivedBytes == 1024)
        #expect(receiver.receive(block(2, [2])) == [.blockReceived(2)])
    }

    @Test func theBlockAwaitingADecisionIsNamedUntilItIsDecided() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        #expect(receiver.blockAwaitingDecision == nil)
        _ = receiver.receive(header("f\u{0}2048"))
        #expect(receiver.blockAwaitingDecision == nil)
        _ = receiver.receive(block(1, [1]))
        #expect(receiver.blockAwaitingDecision == 1)
        _ = receiver.acknowledge()
        #expect(receiver.blockAwaitingDecision == nil)
        _ = receiver.receive(block(2, [2]))
        #expect(receiver.blockAwaitingDecision == 2)
        _ = receiver.refuse()
        #expect(receiver.blockAwaitingDecision == nil)
    }

    @Test func aDamagedBlockIsRefusedOnceTheLineIsQuiet() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        _ = receiver.receive(header("f\u{0}1024"))
        var damaged = block(1, [1, 2, 3])
        damaged[500] ^= 0x40
        let actions = receiver.receive(damaged + [0x02, 0x01])  // and the start of something else
        #expect(sent(actions).isEmpty)
        #expect(actions.last == .armTimer(.milliseconds(200)))
        #expect(sent(receiver.deadlinePassed()) == [nak])
        #expect(receiver.receive(block(1, [1, 2, 3])) == [.blockReceived(1)])
    }

    @Test func aBlockCutShortIsRefusedAfterTheInterByteTimeout() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        _ = receiver.receive(header("f\u{0}1024"))
        #expect(receiver.receive(block(1, [1]).prefix(300)) == [.armTimer(.seconds(1))])
        #expect(sent(receiver.deadlinePassed()) == [nak])
        #expect(receiver.receive(block(1, [1])) == [.blockReceived(1)])
    }

    @Test func tenFailedAttemptsAtABlockEndWithCANCAN() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        _ = receiver.receive(header("f\u{0}1024"))
        for _ in 1..<10 {
            _ = receiver.receive(block(1, [1]))
            #expect(sent(receiver.refuse()) == [nak])
        }
        _ = receiver.receive(block(1, [1]))
        let last = receiver.refuse()
        #expect(sent(last) == [can, can])
        #expect(failure(last) == .tooManyErrors(block: 1))
    }

    @Test func blockZeroMustAnnounceTheSizeGivenBeforehand() {
        var receiver = YModemReceiver(expectedSize: 3028)
        _ = receiver.start()
        let actions = receiver.receive(header("f\u{0}3029"))
        #expect(sent(actions) == [can, can])
        #expect(failure(actions) == .sizeMismatch(announced: 3028, header: 3029))
    }

    @Test func cRepeatsOnceASecondForSixtySecondsThenGivesUp() {
        var receiver = YModemReceiver()
        #expect(receiver.start() == [.send([c]), .armTimer(.seconds(1))])
        for _ in 2...60 { #expect(sent(receiver.deadlinePassed()) == [c]) }
        let last = receiver.deadlinePassed()
        #expect(sent(last) == [can, can] && failure(last) == .noSender)
    }

    @Test func silenceBetweenBlocksEndsTheTransfer() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        let actions = receiver.receive(header("f\u{0}1024"))
        #expect(actions.last == .armTimer(.seconds(10)))
        let timedOut = receiver.deadlinePassed()
        #expect(sent(timedOut) == [can, can] && failure(timedOut) == .timedOut(block: 1))
    }

    @Test func theSenderMayAbortWithCANCAN() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        _ = receiver.receive(header("f\u{0}1024"))
        #expect(receiver.receive([can]).isEmpty)
        #expect(receiver.receive([can]) == [.failed(.cancelledBySender)])
    }

    @Test func aRejectedFileIsAnsweredCANCAN() {
        var receiver = YModemReceiver()
        _ = receiver.start()
        _ = receiver.receive(header("f\u{0}10"))
        _ = receiver.receive(block(1, Array(repeating: 5, count: 10), size: 128))
        _ = receiver.acknowledge()
        _ = receiver.receive([eot])
        _ = receiver.receive([eot])
        #expect(receiver.receive(header("")) == [.fileReceived(name: "f", data: Array(repeating: 5, count: 10))])
        #expect(receiver.reject() == [.send([can, can]), .failed(.rejected)])
    }

    /// Block numbers wrap after 255: 300 blocks end to end against the sender, with a NAK
    /// on block 256 (number 0), resent once the line is quiet, and packets of 244 bytes.
    @Test func senderAndReceiverEndToEndAcrossTheWrap() {
        var generator = SeededGenerator(seed: 12)
        let file = (0..<(300 * 1024 - 17)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var sender = YModemSender(fileName: "big.vfw", file: file)
        var receiver = YModemReceiver(expectedSize: file.count)
        var toReceiver: [UInt8] = []
        var toSender: [UInt8] = []
        var refused = false
        var result: [UInt8]?
        var senderDone = false
        func runSender(_ actions: [YModemSender.Action]) {
            for case .send(let bytes) in actions { toReceiver += bytes }
            if actions.contains(.finished) { senderDone = true }
        }
        func runReceiver(_ actions: [Action]) {
            for action in actions {
                switch action {
                case .send(let bytes): toSender += bytes
                case .blockReceived(let index):
                    if index == 256, !refused {
                        refused = true
                        runReceiver(receiver.refuse())
                    } else {
                        runReceiver(receiver.acknowledge())
                    }
                case .fileReceived(_, let data):
                    result = data
                    runReceiver(receiver.accept())
                default: break
                }
            }
        }
        runSender(sender.start())
        runReceiver(receiver.start())
        for _ in 0..<10_000 where !senderDone {
            while !toReceiver.isEmpty {
                let packet = Array(toReceiver.prefix(244))
                toReceiver.removeFirst(packet.count)
                runReceiver(receiver.receive(packet))
            }
            let answer = toSender
            toSender.removeAll()
            // Nothing on the line either way: the sender's timer (after a NAK, the quiet
            // period) fires.
            runSender(answer.isEmpty ? sender.deadlinePassed() : sender.receive(answer))
        }
        #expect(senderDone)
        #expect(refused)
        #expect(result == file)
    }
}
