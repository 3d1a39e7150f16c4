import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Foundation
import ManualClockSteps
import ReaderProtocol
import Synchronization
import TestEnvironment
import Testing

/// `CardReader.updateFirmware` against the emulated reader (documentation §7), the reader
/// and the emulator on one manual clock: the emulated reader drops the link 10 ms after
/// verifying an image and is back 50 ms later, and a test moves the clock through those
/// (``Bench/driveRestart()``) and through any other timing it exercises; every deadline
/// that a test does not advance to never passes, however busy the machine. The image is
/// the fixture `Fixtures/firmware/vpos3356-2.5.0.vfw` (built with Python's `zlib.crc32`;
/// the emulated reader runs 2.4.1).
@Suite(.timeLimit(.minutes(1)))
struct FirmwareUpdateTests {
    static let image: FirmwareImage = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Fixtures/firmware/vpos3356-2.5.0.vfw")
        do {
            return try FirmwareImage(bytes: Array(try Data(contentsOf: url)))
        } catch {
            Issue.record("the fixture image does not load: \(error)")
            return (try? FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "2.5.0", payload: [0])))!
        }
    }()

    struct Bench {
        static let disconnectDelay = Duration.milliseconds(10)
        static let restartTime = Duration.milliseconds(50)

        let clock = ManualClock()
        let emulator: EmulatedReader
        let reader: CardReader
        /// The emulated reader's connector, behind one that counts the packets the host writes.
        let connector: EmulatedReaderConnector
        let control = ConnectorControl()

        /// `disconnectDelay`: how long after verifying an image the emulated reader drops
        /// the link; `connectPriority`: the priority of the task that connects, which the
        /// link's inbound task inherits.
        init(
            scenario: [String] = [], mtu: Int = 23, battery: UInt8 = 85, firmware: String = "2.4.1",
            disconnectDelay: Duration = Self.disconnectDelay, connectPriority: TaskPriority? = nil
        ) async throws {
            var configuration = EmulatedReaderConfiguration(
                firmwareDisconnectDelay: disconnectDelay, firmwareRestartTime: Self.restartTime)
            configuration.info.batteryPercent = battery
            configuration.info.firmwareVersion = firmware
            emulator = EmulatedReader(
                scenario: try EmulatorScenario(parsing: scenario), configuration: configuration, clock: clock)
            // A reader before 3.0: its link is unencrypted, and the update runs only because
            // the configuration allows that.
            connector = EmulatedReaderConnector(reader: emulator, mtu: mtu)
            reader = CardReader(
                connector: ControlledConnector(base: connector, control: control),
                configuration: CardReader.Configuration(allowsUnencryptedLink: true), clock: clock)
            let reader = reader
            try await Task(priority: connectPriority) { try await reader.connect() }.value
        }

        /// Runs `body` while the clock steps through the reader's restart after it verified
        /// an image (its disconnect delay, then its restart time: the host's connection
        /// waits for it) and any shorter timing of the emulated reader, such as a late
        /// acknowledgement; never through a deadline of the host.
        func throughRestart<Value: Sendable>(_ body: @Sendable () async throws -> Value) async rethrows -> Value {
            try await stepping(through: Self.restartTime, body)
        }

        /// Runs `body` while the clock steps through every sleep that ends within `horizon`,
        /// each step only once the host is not part way through writing a block
        /// (``EmulatedReader/isTakingABlockFromTheHost``): however busy the machine, a host
        /// between two writes of one block never meets the reader's 1 s pause between a
        /// block's bytes, which would cut the block short.
        func stepping<Value: Sendable>(
            through horizon: Duration, _ body: @Sendable () async throws -> Value
        ) async rethrows -> Value {
            let (emulator, control) = (emulator, control)
            let stepper = ClockStepper(clock, throughSleepsWithin: horizon) {
                try await control.waitUntilHostIsNotWriting { await emulator.isTakingABlockFromTheHost }
            }
            defer { stepper.stop() }
            return try await body()
        }

        /// Runs the update, with `drive` moving the clock meanwhile; the phases seen, in
        /// order, without repeats, and the outcome.
        func update(
            _ image: FirmwareImage = FirmwareUpdateTests.image, options: FirmwareUpdateOptions = .init(),
            driving drive: (@Sendable (Bench) async throws -> Void)? = nil
        ) async throws -> (phases: [FirmwareUpdateProgress.Phase], progress: [FirmwareUpdateProgress],
            result: Result<FirmwareUpdateReport, CardReaderError>)
        {
            let seen = Seen()
            let reader = reader
            let run = Task { () -> Result<FirmwareUpdateReport, CardReaderError> in
                do throws(CardReaderError) {
                    return .success(try await reader.updateFirmware(image: image, options: options).run { seen.add($0) })
                } catch {
                    return .failure(error)
                }
            }
            if let drive {
                do {
                    try await drive(self)
                } catch {
                    run.cancel()
                    throw error
                }
            }
            let result = await run.value
            let progress = seen.all
            var phases: [FirmwareUpdateProgress.Phase] = []
            for item in progress where phases.last != item.phase { phases.append(item.phase) }
            return (phases, progress, result)
        }

        /// An update that ends in the reader's restart.
        func updateThroughRestart(_ image: FirmwareImage = FirmwareUpdateTests.image, options: FirmwareUpdateOptions = .init())
            async throws -> (phases: [FirmwareUpdateProgress.Phase], progress: [FirmwareUpdateProgress],
                result: Result<FirmwareUpdateReport, CardReaderError>)
        {
            try await throughRestart { try await update(image, options: options) }
        }

        func failure(
            _ image: FirmwareImage = FirmwareUpdateTests.image, options: FirmwareUpdateOptions = .init(),
            driving drive: (@Sendable (Bench) async throws -> Void)? = nil
        ) async throws -> FirmwareUpdateError? {
            guard case .failure(let failure) = try await update(image, options: options, driving: drive).result,
                let error = failure.firmwareUpdate
            else {
                return nil
            }
            return error
        }

        /// The reader is usable at once, in frame mode, on `version`.
        func expectUsable(on version: String) async throws {
            #expect(try await reader.info().firmwareVersion == version)
            #expect(await emulator.firmwareVersion == version)
        }
    }

    final class Log: Sendable {
        private let items = Mutex<[String]>([])
        func add(_ item: String) { items.withLock { $0.append(item) } }
        var all: [String] { items.withLock { $0 } }
    }

    final class Seen: Sendable {
        private let items = Mutex<[FirmwareUpdateProgress]>([])
        func add(_ progress: FirmwareUpdateProgress) { items.withLock { $0.append(progress) } }
        var all: [FirmwareUpdateProgress] { items.withLock { $0 } }
    }

    @Test(arguments: [23, 247]) func aGoodImageIsInstalledAndConfirmed(mtu: Int) async throws {
        let bench = try await Bench(mtu: mtu)
        let (phases, progress, result) = try await bench.updateThroughRestart()
        let report = try result.get()
        #expect(report.previousVersion == "2.4.1" && report.version == "2.5.0" && report.bytes == 3028)
        #expect(phases == [.checking, .entering, .transferring, .verifying, .restarting, .reconnecting, .confirming, .completed])
        let sent = progress.map(\.bytesSent)
        #expect(sent == sent.sorted())
        #expect(sent.contains(1024) && sent.contains(2048) && sent.last == 3028)
        #expect(progress.last?.fractionCompleted == 1)
        try await bench.expectUsable(on: "2.5.0")
        #expect(await bench.reader.state == .connected)
    }

    /// A reader that drops the link the moment it has verified the image: its drop reaches
    /// the host with its last acknowledgement, and can be handled before the update has
    /// read that acknowledgement (here the link's task runs at a higher priority than the
    /// update's). The drop is still the reader's restart, not the reader gone.
    @Test func aRestartThatOvertakesTheLastAcknowledgementIsTheRestart() async throws {
        let bench = try await Bench(mtu: 247, disconnectDelay: .zero, connectPriority: .high)
        let reader = bench.reader
        let image = Self.image
        let report = try await bench.throughRestart {
            try await Task(priority: .low) { try await reader.updateFirmware(image: image).run() }.value
        }
        #expect(report.version == "2.5.0")
        #expect(await reader.status.lastDisconnect?.code == .firmwareRestart)
    }

    /// 300 KiB: block numbers wrap past 255 on the way.
    @Test func aLargeImageCrossesTheBlockNumberWrap() async throws {
        let bench = try await Bench(mtu: 247)
        var generator = SystemRandomNumberGenerator()
        let payload = (0..<(300 * 1024)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let image = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "2.9.0", payload: payload))
        #expect(try await bench.updateThroughRestart(image).result.get().version == "2.9.0")
        try await bench.expectUsable(on: "2.9.0")
    }

    /// An update from 2.4.1 to 3.0 (§1.1): the reader comes back needing an encrypted link,
    /// and this host holds no bond. The update says so at once, rather than waiting out its
    /// return deadline; once paired (the restart is a power-on: pairing mode), the reader
    /// runs 3.0.0, encrypted.
    @Test func anUpdateTo3Point0EndsAskingForPairing() async throws {
        let bench = try await Bench()
        let image = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "3.0.0", payload: [1, 2, 3]))
        let failure = try #require(
            try await bench.throughRestart { try await bench.failure(image, options: FirmwareUpdateOptions(returnTimeout: .seconds(30))) })
        #expect(failure.code == .readerNeedsPairing)
        #expect(failure.link?.code == .notPaired)
        #expect(!failure.oldFirmwareKept)
        #expect(try await bench.connector.pair(PairingRequest()) == .paired(.justWorks))
        try await bench.reader.connect()
        #expect(await bench.reader.linkSecurity == .encrypted)
        try await bench.expectUsable(on: "3.0.0")
    }

    /// An image before 3.0 is not installed on a reader whose link is encrypted: this host
    /// would never use it again (no downgrade). Nothing is sent.
    @Test func anImageBefore3Point0IsNotInstalledOverAnEncryptedLink() async throws {
        let clock = ManualClock()
        let emulator = EmulatedReader(clock: clock)
        let reader = CardReader(connector: EmulatedReaderConnector(reader: emulator), clock: clock)
        try await reader.connect()
        #expect(await reader.linkSecurity == .encrypted)
        do {
            _ = try await reader.updateFirmware(image: FirmwareUpdateTests.image).run { _ in }
            Issue.record("the update ran")
        } catch {
            #expect(error.firmwareUpdate?.code == .securityDowngrade)
        }
        #expect(await emulator.firmwareVersion == "3.1.0")
    }

    @Test func anImageForAnotherModelIsRefusedBeforeAnythingIsSent() async throws {
        let bench = try await Bench()
        let image = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS9999", version: "2.5.0", payload: [1, 2]))
        #expect(try await bench.failure(image) == .invalidImage(.wrongModel(image: "VPOS9999", reader: "VPOS3356")))
        try await bench.expectUsable(on: "2.4.1")
    }

    @Test func aLowBatteryIsRefusedBeforeEnteringUpdateMode() async throws {
        let bench = try await Bench(battery: 29)
        let (phases, _, result) = try await bench.update()
        #expect(phases == [.checking])
        guard case .failure(let failure) = result, let error = failure.firmwareUpdate else { return #expect(Bool(false)) }
        #expect(error == .batteryTooLow(percent: 29, required: 30))
        try await bench.expectUsable(on: "2.4.1")
    }

    /// With the host's battery check off, the reader's own (§7.1: `0B` below 30 %) refuses.
    @Test func theReaderRefusesWithItsStatus() async throws {
        let bench = try await Bench(battery: 20)
        let error = try await bench.failure(options: FirmwareUpdateOptions(minimumBattery: 0))
        #expect(error == .refused(.batteryTooLow))
        #expect(CardReaderError.firmwareUpdateFailed(error ?? .verificationFailed).readerStatus == .batteryTooLow)
        try await bench.expectUsable(on: "2.4.1")
    }

    @Test(.enabled(if: LongTests.enabled, Comment(rawValue: LongTests.reason))) func aNAKedBlockIsSentAgain() async throws {
        let bench = try await Bench(scenario: ["firmware-nak=2:3", "firmware-nak=3"])
        // The sender waits for 1 s of quiet after each NAK; the restart is shorter.
        let report = try await bench.stepping(through: .seconds(1)) {
            try await bench.update().result.get()
        }
        #expect(report.version == "2.5.0")
        // Block 2 twice in 1 KiB, then (two failures) in 128-byte blocks, the first of which
        // the reader refuses once more; block 3's NAK lands on a 128-byte block too.
        #expect(report.fellBackToSmallBlocks)
        #expect(report.resentBlocks == 4)
    }

    /// A refused block costs what the link needs, not a fixed second: the quiet before it
    /// goes again is twice the longest the reader's answers took after a write, at least
    /// 100 ms. In process the reader answers at once, so block 2's `NAK` costs the 100 ms
    /// floor, which is the whole transfer's time here.
    @Test func aRefusedBlockCostsWhatTheLinkNeeds() async throws {
        let bench = try await Bench(scenario: ["firmware-nak=2"])
        let update = Task { try await bench.update().result.get() }
        // After block 2's NAK, the sender's quiet: due exactly 100 ms on (1 s before).
        try await bench.clock.waitForSleepers(
            dueNoSoonerThan: .milliseconds(100), dueWithin: .milliseconds(100), within: WaitBound.inProcess)
        let report = try await bench.stepping(through: .seconds(1)) { try await update.value }
        #expect(report.resentBlocks == 1)
        #expect(report.version == "2.5.0")
    }

    /// A reader whose microcontroller reads the update through a 512-byte UART buffer at
    /// 115,200 baud (`firmware-uart`): the in-process link delivers a whole 1 KiB block at
    /// once, so the buffer overflows on every one; after two failed attempts the sender
    /// goes on in 128-byte blocks, which fit, and the image arrives whole. The clock moves
    /// as the reader's microcontroller does: its UART read every 5 ms, 1 s of silence that
    /// cuts a block short, 200 ms of quiet before its `NAK`.
    @Test(.enabled(if: LongTests.enabled, Comment(rawValue: LongTests.reason))) func aReaderWhoseUARTOverflowsGetsTheImageIn128ByteBlocks() async throws {
        let bench = try await Bench(scenario: ["firmware-uart=512:11520"], mtu: 247)
        let report = try await bench.stepping(through: .seconds(1)) {
            try await bench.update().result.get()
        }
        #expect(report.version == "2.5.0")
        #expect(report.fellBackToSmallBlocks)
        #expect(report.resentBlocks == 2)  // block 1's second 1 KiB attempt, then its first 128 bytes
        try await bench.expectUsable(on: "2.5.0")
    }

    /// The reader gives up on a block after 10 failed attempts (`CAN CAN`, §7.2).
    @Test(.enabled(if: LongTests.enabled, Comment(rawValue: LongTests.reason))) func aBlockRefusedTenTimesEndsTheTransfer() async throws {
        let bench = try await Bench(scenario: ["firmware-nak=2:10"])
        // The sender waits for 1 s of quiet after each NAK.
        let error = try await bench.stepping(through: .seconds(1)) { try await bench.failure() }
        #expect(error == .abortedByReader(block: 2))
        try await bench.expectUsable(on: "2.4.1")
    }

    @Test func theReaderMayAbortMidTransfer() async throws {
        let bench = try await Bench(scenario: ["firmware-cancel-at=2"])
        let error = try await bench.failure()
        #expect(error == .abortedByReader(block: 2))
        #expect(error?.oldFirmwareKept == true)
        try await bench.expectUsable(on: "2.4.1")
    }

    @Test func anImageCorruptedOnTheWayFailsVerification() async throws {
        let bench = try await Bench(scenario: ["firmware-corrupt"])
        let (phases, _, result) = try await bench.update()
        #expect(phases.last == .verifying)
        guard case .failure(let failure) = result, let error = failure.firmwareUpdate else { return #expect(Bool(false)) }
        #expect(error == .verificationFailed)
        try await bench.expectUsable(on: "2.4.1")
    }

    @Test func aLinkLostMidImageLeavesTheOldFirmware() async throws {
        let bench = try await Bench(scenario: ["firmware-drop-at=2"])
        let failure = try await bench.failure()
        guard let failure, failure.code == .linkLost else { return #expect(Bool(false)) }
        #expect(failure.block == 2 && failure.link?.code == .remoteDisconnected)
        #expect(await bench.emulator.firmwareVersion == "2.4.1")
        // The update can start again from the beginning.
        try await bench.reader.connect()
        let again = try await Bench(scenario: [])
        #expect(try await again.updateThroughRestart().result.get().version == "2.5.0")
    }

    /// The reader drops the link and never comes back: the host's connection waits the
    /// 400 ms the update gives the reader to return, then the update says so.
    @Test func aReaderThatDoesNotComeBackIsReported() async throws {
        let bench = try await Bench(scenario: ["firmware-no-restart"])
        let error = try await bench.failure(options: FirmwareUpdateOptions(returnTimeout: .milliseconds(400))) { bench in
            try await bench.clock.advance(pastSleepOf: Bench.disconnectDelay)
            try await bench.clock.advance(pastSleepOf: .milliseconds(400))
        }
        #expect(error == .readerDidNotReturn(after: .milliseconds(400)))
        #expect(error?.oldFirmwareKept == false)
    }

    @Test func aReaderBackOnTheWrongVersionIsReported() async throws {
        let bench = try await Bench(scenario: ["firmware-keeps-version"])
        #expect(try await bench.throughRestart { try await bench.failure() } == .wrongVersion(expected: "2.5.0", found: "2.4.1"))
    }

    /// A reader that stops answering: the sender tries again after each deadline, then gives
    /// up with `CAN CAN`, which the reader honours at once. The clock passes each deadline
    /// (the reader's 100 ms plus the default 1 s link margin) once block 1 has been written
    /// in full: GET INFO and ENTER FIRMWARE UPDATE take a packet each at MTU 23, block 0
    /// (133 bytes) 7 and block 1 (1029 bytes) 52.
    @Test func noAnswerWithinTheDeadline() async throws {
        let bench = try await Bench(scenario: ["firmware-slow-ack=60000"])
        let options = FirmwareUpdateOptions(ymodem: .init(attemptsPerBlock: 2, answerTimeout: .milliseconds(100)))
        let deadline = Duration.milliseconds(1100)
        let error = try await bench.failure(options: options) { bench in
            for (attempt, written) in [1 + 1 + 7 + 52, 1 + 1 + 7 + 52 + 52].enumerated() {
                try await bench.control.waitForWrites(written)
                try await bench.clock.advance(toSleeperAt: deadline * (attempt + 1))
            }
        }
        #expect(error == .noAnswer(block: 1, after: deadline))
        try await bench.expectUsable(on: "2.4.1")
    }

    /// Cancelling the task sends `CAN CAN`; the reader is back in frame mode at once. The
    /// reader acknowledges each block 20 ms late.
    @Test func cancellingLeavesTheReaderUsableOnItsOldFirmware() async throws {
        let bench = try await Bench(scenario: ["firmware-slow-ack=20"])
        let reader = bench.reader
        let image = Self.image
        let error = await bench.stepping(through: .milliseconds(20)) { () async -> CardReaderError? in
            await Task { () async -> CardReaderError? in
                do throws(CardReaderError) {
                    for try await progress in reader.updateFirmware(image: image)
                    where progress.phase == .transferring && progress.bytesSent >= 1024 {
                        withUnsafeCurrentTask { $0?.cancel() }
                    }
                    return nil
                } catch {
                    return error
                }
            }.value
        }
        guard let failure = error?.firmwareUpdate, failure.code == .cancelled else {
            return #expect(Bool(false), "not cancelled: \(String(describing: error))")
        }
        #expect((failure.block ?? 0) >= 2)
        try await bench.expectUsable(on: "2.4.1")
    }

    /// A cancel after the reader verified the image cannot take the image back: the reader
    /// restarts on it. The update ends with `installedUnconfirmed`, naming both versions,
    /// never `cancelled` with the old firmware claimed; the reader then runs 2.5.0. The
    /// progress handler runs in the update's own task, so the cancel lands in that phase.
    @Test(arguments: [FirmwareUpdateProgress.Phase.restarting, .reconnecting, .confirming])
    func aCancelAfterVerificationReportsTheInstalledImage(phase: FirmwareUpdateProgress.Phase) async throws {
        let bench = try await Bench(scenario: [])
        let reader = bench.reader
        let image = Self.image
        let error = await bench.throughRestart { () async -> CardReaderError? in
            await Task { () async -> CardReaderError? in
                do throws(CardReaderError) {
                    _ = try await reader.updateFirmware(image: image).run { progress in
                        if progress.phase == phase { withUnsafeCurrentTask { $0?.cancel() } }
                    }
                    return nil
                } catch {
                    return error
                }
            }.value
        }
        let failure = try #require(error?.firmwareUpdate, "\(String(describing: error))")
        #expect(failure == .installedUnconfirmed(version: "2.5.0", previousVersion: "2.4.1"))
        #expect(!failure.oldFirmwareKept)
        #expect(failure.description.contains("verified image 2.5.0"))
        try await bench.throughRestart { try await reader.connect() }
        try await bench.expectUsable(on: "2.5.0")
    }

    /// Only a newer image is sent. The image is 2.5.0; the reader runs `firmware`. The same
    /// version is nothing to do (no byte of the image written, and at 10 % battery, which
    /// would refuse a transfer); an older image, or versions that are not dotted numbers,
    /// are refused before ENTER FIRMWARE UPDATE, and sent when the options allow them.
    @Test(arguments: [
        ("2.5.0", FirmwareUpdateError?.none, true), ("2.5", nil, true),
        ("2.10.0", .olderImage(imageVersion: "2.5.0", readerVersion: "2.10.0"), false),
        ("2.5.0-rc1", .versionsNotComparable(imageVersion: "2.5.0", readerVersion: "2.5.0-rc1"), false),
    ])
    func onlyANewerImageIsSent(firmware: String, refusal: FirmwareUpdateError?, alreadyInstalled: Bool) async throws {
        let bench = try await Bench(battery: 10, firmware: firmware)
        let written = await bench.control.writes
        do throws(CardReaderError) {
            let report = try await bench.reader.updateFirmware(image: Self.image).run()
            #expect(refusal == nil && report.alreadyInstalled == alreadyInstalled && report.bytes == 0)
        } catch {
            #expect(error.firmwareUpdate == refusal, "\(error)")
            #expect(error.firmwareUpdate?.oldFirmwareKept == true)
        }
        #expect(await bench.control.writes == written + 1, "GET INFO alone was written")
        #expect(await bench.emulator.firmwareVersion == firmware)
    }

    /// Asked for, an older image and one whose versions do not compare are sent.
    @Test(arguments: ["2.10.0", "2.5.0-rc1"])
    func aDowngradeOrAnIncomparableVersionIsSentWhenAllowed(firmware: String) async throws {
        let bench = try await Bench(firmware: firmware)
        let options = FirmwareUpdateOptions(allowsOlderImage: true, allowsIncomparableVersions: true)
        let image = Self.image
        let report = try await bench.throughRestart { try await bench.reader.updateFirmware(image: image, options: options).run() }
        #expect(report.previousVersion == firmware && report.version == "2.5.0" && !report.alreadyInstalled)
        try await bench.expectUsable(on: "2.5.0")
    }

    /// Two versions that are not dotted numbers are not taken for the same one, whatever
    /// their text: allowed, the image is sent.
    @Test func incomparableVersionsAreNeverTakenForAlreadyInstalled() async throws {
        let bench = try await Bench(firmware: "2.4.1-rc")
        let image = try FirmwareImage(
            bytes: FirmwareImage.encode(model: "VPOS3356", version: "2.5.0-beta", payload: Array(repeating: 0xA5, count: 2048)))
        let options = FirmwareUpdateOptions(allowsIncomparableVersions: true)
        let report = try await bench.throughRestart { try await bench.reader.updateFirmware(image: image, options: options).run() }
        #expect(!report.alreadyInstalled && report.bytes == image.bytes.count)
        #expect(await bench.emulator.firmwareVersion == "2.5.0-beta")
    }

    /// Leaving the loop early cancels the update too.
    @Test func leavingTheLoopCancelsTheUpdate() async throws {
        let bench = try await Bench(scenario: ["firmware-slow-ack=20"])
        let reader = bench.reader
        let image = Self.image
        try await bench.stepping(through: .milliseconds(20)) {
            for try await progress in reader.updateFirmware(image: image) where progress.bytesSent > 0 {
                break
            }
        }
        // info() waits for the cancelled update to let go of the reader.
        try await bench.expectUsable(on: "2.4.1")
    }

    /// While an update holds the reader no other command goes out, and none waits minutes
    /// for it: a command asked for during the transfer fails at once with `updating`,
    /// carrying the update's progress. A caller that chooses to wait calls
    /// `waitUntilReady(timeout:)`, and its command then runs on the new firmware.
    @Test func aCommandDuringTheUpdateFailsAtOnceWithItsProgress() async throws {
        let bench = try await Bench(scenario: ["firmware-slow-ack=5"])
        let reader = bench.reader
        let image = Self.image
        let refusal = Mutex<Task<(CardReaderError?, ICCSlotState?), Never>?>(nil)
        let update = Task {
            try await reader.updateFirmware(image: image).run { progress in
                guard progress.phase == .transferring, progress.bytesSent > 0 else { return }
                refusal.withLock { task in
                    guard task == nil else { return }
                    task = Task {
                        do throws(CardReaderError) {
                            _ = try await reader.cardSlotState()
                            return (nil, nil)
                        } catch {
                            // The caller chooses to wait, then asks again.
                            let state = try? await {
                                try await reader.waitUntilReady(timeout: .seconds(120))
                                return try await reader.cardSlotState()
                            }()
                            return (error, state)
                        }
                    }
                }
            }
        }
        _ = try await bench.throughRestart { try await update.value }
        let (error, state) = try await #require(refusal.withLock { $0 }).value
        #expect(error?.code == .updating)
        #expect(error?.command == .iccStatus)
        #expect(error?.updateProgress?.phase == .transferring)
        #expect((error?.updateProgress?.bytesSent ?? 0) > 0)
        #expect(state == .noCard)
        #expect(try await reader.info().firmwareVersion == "2.5.0")
    }

    /// Three readers updated side by side: one's dropped link and another's corrupt image
    /// do not disturb the third, which ends on the new version.
    @Test func readersUpdatedSideBySideFailAlone() async throws {
        let benches = [
            try await Bench(), try await Bench(scenario: ["firmware-drop-at=2"]),
            try await Bench(scenario: ["firmware-corrupt"]),
        ]
        let image = Self.image
        // The first one's update ends in its restart.
        let outcomes = await benches[0].throughRestart {
            await withTaskGroup(of: (Int, CardReaderError?).self) { group in
            for (index, bench) in benches.enumerated() {
                group.addTask {
                    do throws(CardReaderError) {
                        _ = try await bench.reader.updateFirmware(image: image).run()
                        return (index, nil)
                    } catch {
                        return (index, error)
                    }
                }
            }
            var outcomes: [Int: CardReaderError?] = [:]
            for await (index, error) in group { outcomes[index] = error }
            return outcomes
            }
        }
        #expect(outcomes[0] == .some(nil))
        #expect(outcomes[1]??.identifier == "firmware-link-lost")
        #expect(outcomes[2]??.identifier == "firmware-verification-failed")
        #expect(await benches[0].emulator.firmwareVersion == "2.5.0")
        #expect(await benches[1].emulator.firmwareVersion == "2.4.1")
        try await benches[2].expectUsable(on: "2.4.1")
    }
}
