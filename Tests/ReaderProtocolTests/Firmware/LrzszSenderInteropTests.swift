#if canImport(Glibc)  // ChildProcess
import ChildProcessSupport
import Foundation
import ReaderProtocol
import TestEnvironment
import Testing

/// lrzsz's YModem sender.
private let lrzszSender = "/usr/bin/sb"

/// The YModem-1K receiver against lrzsz's `sb`, an independent YModem sender: sb is the
/// oracle. If the receiver takes sb's block 0 (name NUL size mtime mode …), its 1 KiB and
/// 128-byte blocks, its EOTs and its end of batch, and hands over the very bytes of the file
/// under its name while sb exits 0, the receiver speaks YModem as others do, not only as
/// its own unit tests (and the package's own sender) say. The mirror image of
/// ``LrzszInteropTests``. Runs where `/usr/bin/sb` exists (.ci/run installs lrzsz).
///
/// sb sends the file named on its command line from its working directory (a fresh
/// temporary one per test) on its standard output and reads the answers on its standard
/// input. The driver below is what the emulated reader does with the receiver's actions:
/// `.send` is a write, `.armTimer` the one deadline (after which the receiver hears
/// ``YModemReceiver/deadlinePassed()``), `.blockReceived` and `.fileReceived` are answered
/// at once as the test decides.
///
/// What sb does, from lrzsz 0.12.21's `sz.c`: with `--1k` it sends 1 KiB blocks (STX) while
/// more than 896 bytes are left and 128-byte blocks (SOH) from then on, the last padded
/// with 1A; block 0 is always a 128-byte block, and so is the end-of-batch block (whose
/// last two bytes sb may fill with leftovers: only its first byte says "no more files");
/// it answers a NAK, or a `C` after block 0, by sending the block again at once; it sends
/// EOT until it gets an ACK; it ignores what the receiver answers to the end-of-batch
/// block.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: lrzszSender), "needs sb: apt-get install lrzsz"))
struct LrzszSenderInteropTests {
    /// sb in YModem batch mode with 1 KiB blocks, no newline conversion; then the file.
    static func arguments(verbose: Bool) -> [String] {
        [lrzszSender, "--ymodem", "--1k", "--binary", verbose ? "--verbose" : "--quiet"]
    }

    /// Everything one transfer may take, sb's exit included: a bound for a hung transfer.
    /// Measured at most 0.1 s in a whole suite run with both cores busy (a transfer about
    /// as long as rb's, whose bound is the same).
    static let bound = Duration.seconds(20)

    /// The reader's receiver, but with its `C` every 5 s rather than every second while it
    /// waits for block 0. sb listens within milliseconds of its start, but were it slow to
    /// start on a loaded machine, a second `C` in its input would be what it takes for the
    /// answer to block 0: a NAK, so it sends block 0 again and from then on runs a block
    /// ahead of the answers (``aSecondStartRequestNeverYieldsAWrongFile()``).
    static let configuration = YModemReceiver.Configuration(startRequestInterval: .seconds(5), startRequests: 4)

    /// The test's answer to ``YModemReceiver/Action/blockReceived(_:)``.
    enum BlockDecision {
        case acknowledge
        case refuse
        case cancel
    }

    /// What became of one transfer.
    struct Outcome {
        /// The receiver's `.finished` or `.failed`.
        var end: YModemReceiver.Action
        /// What ``YModemReceiver/Action/fileReceived(name:data:)`` delivered, if it came.
        var delivered: (name: String, data: [UInt8])?
        /// The size block 0 announced, as the receiver parsed it.
        var headerSize: Int
        /// Every ``YModemReceiver/Action/blockReceived(_:)``, in order.
        var blocksReported: [Int]
        /// Every byte sb wrote before the receiver's end.
        var bytesFromSender: Int
        var sbEnded: ChildProcess.Termination
        /// What sb wrote after the receiver's end, up to its exit.
        var sbLastBytes: [UInt8]
        /// sb's standard error.
        var log: String

        var deliveredDescription: String { delivered.map { "\($0.data.count) bytes as \($0.name)" } ?? "nothing" }
    }

    /// Has a new sb send `file` as `fileName` to a new receiver, deciding on each block
    /// with `decide` (given the block's index and how often it has now been reported) and
    /// on the file with `accept`. The transfer blocks in poll(2), so it runs on a thread of
    /// its own, not on one of the few that other tests' tasks share.
    func transfer(
        fileName: String, file: [UInt8], verbose: Bool = false, accept: Bool = true, options: Options = Options(),
        decide: @escaping @Sendable (_ block: Int, _ times: Int) -> BlockDecision = { _, _ in .acknowledge }
    ) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try Self.transferBlocking(
                        fileName: fileName, file: file, verbose: verbose, accept: accept, options: options,
                        decide: decide)
                })
            }
        }
    }

    /// How a transfer departs from the plain one.
    struct Options: Sendable {
        var configuration = LrzszSenderInteropTests.configuration
        /// The receiver's second `C` goes out with its first.
        var doubleStart = false
        /// sb is killed once the receiver has failed, rather than waited for.
        var killSenderOnFailure = false
    }

    static func transferBlocking(
        fileName: String, file: [UInt8], verbose: Bool, accept: Bool, options: Options,
        decide: (Int, Int) -> BlockDecision
    ) throws -> Outcome {
        let deadline = ContinuousClock.now + Self.bound
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lrzsz-sender-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(file).write(to: directory.appendingPathComponent(fileName))
        let logFile = directory.appendingPathComponent("sb.log").path
        let child = try ChildProcess(
            Self.arguments(verbose: verbose) + [fileName], in: directory.path, standardError: .appended(to: logFile))
        var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

        var receiver = YModemReceiver(expectedSize: file.count, configuration: options.configuration)
        var queue = receiver.start()
        if options.doubleStart { queue += receiver.deadlinePassed() }  // its second `C`, at once
        var timer: ContinuousClock.Instant?
        var blocksReported: [Int] = []
        var delivered: (name: String, data: [UInt8])?
        var bytesFromSender = 0
        var end: YModemReceiver.Action?
        while true {
            while end == nil, !queue.isEmpty {
                let action = queue.removeFirst()
                switch action {
                case .send(let bytes):
                    try child.write(bytes, until: deadline)
                case .armTimer(let delay):
                    timer = .now + delay
                case .blockReceived(let index):
                    blocksReported.append(index)
                    switch decide(index, blocksReported.count { $0 == index }) {
                    case .acknowledge: queue += receiver.acknowledge()
                    case .refuse: queue += receiver.refuse()
                    case .cancel: queue += receiver.cancel()
                    }
                case .fileReceived(let name, let data):
                    delivered = (name, data)
                    queue += accept ? receiver.accept() : receiver.reject()
                case .finished, .failed:
                    end = action
                }
            }
            if end != nil { break }
            guard ContinuousClock.now < deadline else {
                child.kill()
                throw ChildProcess.Failure(
                    description: "no end within \(Self.bound) in phase \(receiver.phase); sb: \(log)")
            }
            guard let bytes = try child.read(until: min(timer ?? deadline, deadline)) else {
                throw ChildProcess.Failure(description: "sb closed its output in phase \(receiver.phase); sb: \(log)")
            }
            if !bytes.isEmpty {
                bytesFromSender += bytes.count
                queue = receiver.receive(bytes)
            } else if let armed = timer, ContinuousClock.now >= armed {
                timer = nil
                queue = receiver.deadlinePassed()
            }
        }
        if options.killSenderOnFailure, case .failed = end { child.kill() }
        let lastBytes = try child.readToEnd(until: deadline)
        let sbEnded = try child.waitForExit(until: deadline)
        return Outcome(
            end: end!, delivered: delivered, headerSize: receiver.fileSize, blocksReported: blocksReported,
            bytesFromSender: bytesFromSender, sbEnded: sbEnded, sbLastBytes: lastBytes, log: log)
    }

    /// The data blocks sb sends for `size` bytes with `--1k`: 1024 bytes while more than 896
    /// are left, 128 from then on (lrzsz's `wctx`).
    static func lrzszBlockSizes(for size: Int) -> [Int] {
        var sizes: [Int] = []
        var sent = 0
        var length = 1024
        while sent < size {
            if size <= sent + 896 { length = 128 }
            sizes.append(length)
            sent += length
        }
        return sizes
    }

    /// The fixture image (3028 bytes: three 1 KiB blocks, the last padded with 1A) arrives
    /// byte for byte under its own name; block 0's size, read up to the space before sb's
    /// mtime, is the file's.
    @Test func receivesTheFirmwareImage() async throws {
        let image = try FixtureFiles.bytes("firmware", "vpos3356-2.5.0.vfw")
        let outcome = try await transfer(fileName: "vpos3356-2.5.0.vfw", file: image)
        #expect(outcome.end == .finished, "sb: \(outcome.log)")
        #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        #expect(outcome.headerSize == image.count)
        #expect(outcome.blocksReported == [1, 2, 3])
        #expect(outcome.delivered?.name == "vpos3356-2.5.0.vfw")
        let intact = outcome.delivered?.data == image  // compared first, so a failure does not print every byte
        #expect(intact, "delivered \(outcome.deliveredDescription)")
    }

    /// 300,000 bytes: 293 blocks of 1 KiB (992 bytes are left for the last, more than 896),
    /// so block numbers wrap from 255 to 0, and the receiver, which checks each number
    /// against the one it expects, must see them wrap as sb does.
    @Test func blockNumbersWrapPast255() async throws {
        var generator = SeededGenerator(seed: 0x5EED_0293)
        let file = generator.bytes(count: 300_000)
        let outcome = try await transfer(fileName: "random.bin", file: file)
        #expect(outcome.end == .finished, "sb: \(outcome.log)")
        #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        #expect(outcome.blocksReported == Array(1...293))
        #expect(outcome.delivered?.name == "random.bin")
        let intact = outcome.delivered?.data == file  // compared first, so a failure does not print every byte
        #expect(intact, "delivered \(outcome.deliveredDescription)")
    }

    /// sb's 128-byte blocks: an empty file (no data block: EOT right after block 0), 100
    /// bytes (one SOH block, no STX at all) and 3772 bytes (three STX blocks, then six SOH
    /// blocks for the last 700). The count of bytes sb wrote pins the block sizes: block 0
    /// and the end-of-batch block of 133, each data block of its size + 5, two EOTs.
    @Test(arguments: [0, 100, 3772]) func takesSbsShortBlocks(size: Int) async throws {
        var generator = SeededGenerator(seed: 0x5_0B00 + UInt64(size))
        let file = generator.bytes(count: size)
        let outcome = try await transfer(fileName: "short-\(size).bin", file: file)
        let blockSizes = Self.lrzszBlockSizes(for: size)
        #expect(outcome.end == .finished, "sb: \(outcome.log)")
        #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        #expect(outcome.headerSize == size)
        #expect(outcome.blocksReported == blockSizes.indices.map { $0 + 1 })
        #expect(outcome.bytesFromSender == 133 + blockSizes.reduce(0) { $0 + $1 + 5 } + 2 + 133)
        #expect(outcome.delivered?.name == "short-\(size).bin")
        let intact = outcome.delivered?.data == file
        #expect(intact, "delivered \(outcome.deliveredDescription)")
    }

    /// Two `C`s before sb has read the first, as when sb starts more than a second after
    /// the receiver's first `C` (which it repeats once a second): sb takes the second `C`
    /// as a NAK of block 0 and sends block 0 again, the receiver acknowledges both copies
    /// (`ACK C` twice), and from then on sb takes each answer for the answer to a later
    /// block, running one block ahead. How that ends depends on how sb's bytes fall into
    /// reads, since the receiver takes one block per decision and drops the rest of a read
    /// while the caller decides. Seen over many runs: a block is dropped and the receiver
    /// fails after ten NAKs at it (sb exits 128); an EOT is dropped and both sides wait,
    /// until the receiver's block deadline; sb's EOT gets a stale ACK and the receiver
    /// NAKs the end-of-batch block where it waits for the second EOT. sb may then wait a
    /// minute more (two CANs do not stop lrzsz's wait for a start request), so it is
    /// killed once the receiver has failed. What must hold in every interleaving: the
    /// receiver finishes only with the very file sent. (It once delivered 2048 of the
    /// 3028 bytes: ``anEOTBeforeTheAnnouncedSizeIsRefused()``.)
    @Test func aSecondStartRequestNeverYieldsAWrongFile() async throws {
        let image = try FixtureFiles.bytes("firmware", "vpos3356-2.5.0.vfw")
        var options = Options(doubleStart: true, killSenderOnFailure: true)
        options.configuration.blockTimeout = .seconds(2)  // an interleaving ends at this deadline
        let outcome = try await transfer(fileName: "vpos3356-2.5.0.vfw", file: image, verbose: true, options: options)
        if let delivered = outcome.delivered {
            let intact = delivered.data == image
            #expect(intact, "delivered \(outcome.deliveredDescription), ended \(outcome.end); sb: \(outcome.log)")
        }
        if outcome.end == .finished {
            #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        }
    }

    /// One interleaving of the test above, replayed as sb's bytes came in the reads of a
    /// recorded run (266, 1029, 3087, 1, 1 bytes): both copies of block 0 in one read;
    /// block 1; block 2, sb's repeat of block 2 (it had taken a `C` for a NAK) and block 3
    /// in one read; then EOTs. A receiver that dropped the bytes behind block 2 while its
    /// caller decided lost block 3 and, before it checked the size at EOT, delivered 2048
    /// of the 3028 bytes as the file. Now the held bytes count after the decision, and an
    /// EOT before the announced size is a failed attempt at the missing block.
    @Test func aSenderRunningAheadLosesNothingAndAnEarlyEOTIsRefused() throws {
        let image = try FixtureFiles.bytes("firmware", "vpos3356-2.5.0.vfw")
        let (ack, nak, c, can, eot) = (YModem.ack, YModem.nak, YModem.crcRequest, YModem.can, YModem.eot)
        func sent(_ actions: [YModemReceiver.Action]) -> [UInt8] {
            actions.flatMap { action -> [UInt8] in if case .send(let bytes) = action { bytes } else { [] } }
        }
        // sb's block 0: name, NUL, "size mtime mode serial files-left bytes-left", NULs,
        // and in its last byte the size in 128-byte records (lrzsz's "goodie for IMP/KMD").
        var fields = Array("vpos3356-2.5.0.vfw".utf8) + [0] + Array("3028 15301135111 100644 0 1 3028".utf8)
        fields += [UInt8](repeating: 0, count: 128 - fields.count)
        fields[127] = UInt8((image.count + 127) >> 7)
        let header = YModem.block(number: 0, data: fields, pad: 0)
        let blocks = stride(from: 0, to: image.count, by: 1024).enumerated().map { index, start in
            YModem.block(number: UInt8(index + 1), data: image[start..<min(start + 1024, image.count)])
        }

        var receiver = YModemReceiver(expectedSize: image.count)
        #expect(sent(receiver.start() + receiver.deadlinePassed()) == [c, c])
        #expect(sent(receiver.receive(header + header)) == [ack, c, ack, c])
        #expect(receiver.receive(blocks[0]) == [.blockReceived(1)])
        #expect(sent(receiver.acknowledge()) == [ack])
        // The bytes behind block 2 wait for its decision, then count: the repeat is
        // acknowledged and discarded, block 3 is reported. Nothing sb sent is lost.
        #expect(receiver.receive(blocks[1] + blocks[1] + blocks[2]) == [.blockReceived(2)])
        let afterBlock2 = receiver.acknowledge()
        #expect(sent(afterBlock2) == [ack, ack])
        #expect(afterBlock2.last == .blockReceived(3))
        #expect(sent(receiver.acknowledge()) == [ack])
        #expect(sent(receiver.receive([eot])) == [nak])
        #expect(sent(receiver.receive([eot])) == [ack, c])
        #expect(receiver.receive(YModem.endOfBatch) == [.fileReceived(name: "vpos3356-2.5.0.vfw", data: image)])

        // Had block 3 been lost, the EOTs would be failed attempts at it, never a short file.
        var short = YModemReceiver(expectedSize: image.count)
        _ = short.start()
        _ = short.receive(header)
        _ = short.receive(blocks[0])
        _ = short.acknowledge()
        _ = short.receive(blocks[1])
        _ = short.acknowledge()
        #expect(short.receivedBytes == 2048)
        for _ in 1..<10 { #expect(sent(short.receive([eot])) == [nak]) }
        let last = short.receive([eot])
        #expect(sent(last) == [can, can])
        #expect(last.last == .failed(.tooManyErrors(block: 3)))
    }

    /// Block 2 refused once (NAK, as the emulated reader's `firmware-nak=2` does): sb sends
    /// it again, it is reported again, and the file still arrives intact.
    @Test func aRefusedBlockIsSentAgain() async throws {
        let image = try FixtureFiles.bytes("firmware", "vpos3356-2.5.0.vfw")
        let outcome = try await transfer(fileName: "vpos3356-2.5.0.vfw", file: image) { block, times in
            block == 2 && times == 1 ? .refuse : .acknowledge
        }
        #expect(outcome.end == .finished, "sb: \(outcome.log)")
        #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        #expect(outcome.blocksReported == [1, 2, 2, 3])
        let intact = outcome.delivered?.data == image
        #expect(intact, "delivered \(outcome.deliveredDescription)")
    }

    /// The receiver gives up at block 3 (`CAN CAN` in place of its ACK): sb stops, sends
    /// its own cancel string and exits with lrzsz's failure status (0200).
    @Test func sbHonoursTheReceiversCancellation() async throws {
        var generator = SeededGenerator(seed: 0xCA_2CA3)
        let file = generator.bytes(count: 20 * 1024)
        let outcome = try await transfer(fileName: "cancelled.bin", file: file, verbose: true) { block, _ in
            block == 3 ? .cancel : .acknowledge
        }
        #expect(outcome.end == .failed(.cancelled))
        #expect(outcome.blocksReported == [1, 2, 3])
        #expect(outcome.delivered == nil)
        #expect(outcome.sbEnded == .exited(128), "sb: \(outcome.log)")
        #expect(outcome.sbLastBytes.contains(YModem.can))  // sb's canit(): it has given up too
        #expect(outcome.log.contains("Transfer incomplete"), "sb: \(outcome.log)")
    }

    /// Rejecting the file (`CAN CAN` in answer to the end-of-batch block, as the reader
    /// does with an image that fails verification) ends the receiver with `.rejected`, and
    /// sb hears it ("Cancelled" in its log), but sb still exits 0: lrzsz's `wcsend` sends
    /// the end-of-batch block with `wctxpn` and ignores what it returns, since every file
    /// has been sent and acknowledged by then. A YModem sender cannot be relied on to
    /// report a rejection that comes this late; a host learns it from the reader (GET INFO
    /// still reporting the old version), as `CardReader.updateFirmware` does.
    @Test func sbDoesNotReportARejectionAtTheEndOfTheBatch() async throws {
        let image = try FixtureFiles.bytes("firmware", "vpos3356-2.5.0.vfw")
        let outcome = try await transfer(fileName: "vpos3356-2.5.0.vfw", file: image, verbose: true, accept: false)
        #expect(outcome.end == .failed(.rejected))
        let intact = outcome.delivered?.data == image  // the whole file came before the rejection
        #expect(intact, "delivered \(outcome.deliveredDescription)")
        #expect(outcome.log.contains("Cancelled"), "sb: \(outcome.log)")
        #expect(outcome.sbEnded == .exited(0), "sb: \(outcome.log)")
        #expect(outcome.log.contains("Transfer complete"), "sb: \(outcome.log)")
    }
}
#endif
