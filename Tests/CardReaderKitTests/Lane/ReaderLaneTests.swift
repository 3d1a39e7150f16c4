import CardReaderKit
import CardReaderKitTesting
import ManualClockSteps
import ReaderProtocol
import Testing

/// A lane's reader between transactions, on one ManualClock: the keep-alive, reconnection
/// without limit, the announced reset, the wait for a command's turn, the battery, and the
/// reason of each drop. The emulated link reports every drop the reader makes as
/// `remote-disconnected`, as BlueZ does: the reasons checked here are the SDK's inference.
/// Timings are the reader documentation's (§6, §8) and the emulated reader's
/// (`EmulatedReaderConfiguration`: a reset announced 2 minutes ahead, 8 s of silence).
@Suite(.timeLimit(.minutes(1)))
struct ReaderLaneTests {
    static let image: FirmwareImage = {
        // A valid image for the emulated VPOS3356 (header and CRC per §7.3).
        (try? FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "3.2.0", payload: [1, 2, 3])))!
    }()

    // MARK: - Keep-alive and reconnection

    /// §8: the reader drops a link without a command after 5 minutes. The lane's keep-alive
    /// (GET INFO after 4 minutes of quiet) holds an idle link for an hour: one connection.
    @Test func theKeepAliveHoldsAnIdleLinkForAnHour() async throws {
        let bench = try await LaneBench()
        try await bench.idle(from: .zero, until: .seconds(3600))
        #expect(await bench.control.attempts == 1)
        #expect(await bench.emulator.lastDropCause == nil)
        let status = await bench.reader.status
        #expect(status.link == .ready)
        #expect(status.lastDisconnect == nil)
    }

    /// Without a keep-alive the reader drops the idle link at 5 minutes: the lane names it
    /// `idle` (from the time without a command, not the drop's code) and reconnects, and a
    /// swipe right after works.
    @Test func anIdleDropIsNamedAndTheLaneReconnects() async throws {
        let bench = try await LaneBench(configuration: LaneBench.lane(keepAlive: nil))
        try await bench.pass(to: .seconds(300))
        let back = try await bench.stepping(within: .seconds(1)) {
            try await bench.waitForStatus { $0.link == .ready && $0.lastDisconnect != nil }
        }
        #expect(back.lastDisconnect?.code == .idle)
        #expect(back.lastDisconnect?.link?.code == .remoteDisconnected)
        #expect(await bench.control.attempts == 2)
        #expect(try await bench.reader.readMagneticStripe().track2.track != nil)
    }

    /// A reader's idle drop can reach the host late (a lost terminate costs a supervision
    /// timeout; through bluetoothd it was measured about 2 s late): one 4 s after the idle
    /// time is still named `idle`; one 10 s after is not.
    @Test(arguments: [(304, DisconnectReason.Code.idle), (310, .readerGone)])
    func anIdleDropThatArrivesLateIsStillIdle(readerIdleSeconds: Int, expected: DisconnectReason.Code) async throws {
        let bench = try await LaneBench(scenario: ["idle-timeout=\(readerIdleSeconds)"], configuration: LaneBench.lane(keepAlive: nil))
        try await bench.pass(to: .seconds(readerIdleSeconds))
        let status = try await bench.waitForStatus { $0.lastDisconnect != nil }
        #expect(status.lastDisconnect?.code == expected)
    }

    /// A drop in the middle of a command is not the idle rule: the reader went away.
    @Test func aDropMidCommandIsTheReaderGone() async throws {
        let bench = try await LaneBench(scenario: ["drop-before-answer=1"])
        await #expect(throws: CardReaderError.self) { try await bench.reader.info() }
        let status = try await bench.waitForStatus { $0.lastDisconnect != nil }
        #expect(status.lastDisconnect?.code == .readerGone)
    }

    /// Attempts go on for as long as the reader is away, the waits doubling from 0.5 s to
    /// 30 s and staying there: 12 refused attempts take 0.5 + 1 + 2 + 4 + 8 + 16 + 6 × 30 s,
    /// and the 13th, 30 s later, connects. A policy with a limit would have given up.
    @Test func theLaneRetriesWithoutLimitAtACappedPace() async throws {
        let bench = try await LaneBench(configuration: LaneBench.lane(keepAlive: nil))
        await bench.control.refuse(next: 12)
        try await bench.pass(to: .seconds(300))
        _ = try await bench.stepping(within: .seconds(30)) {
            try await bench.waitForStatus { $0.link == .ready && $0.lastDisconnect != nil }
        }
        #expect(await bench.control.attempts == 14)
        #expect(bench.now == .seconds(300) + .milliseconds(31_500) + .seconds(7 * 30))
    }

    /// bluetoothd that stops reports its devices disconnected first: the drop looks like the
    /// reader's (here, at its announced reset). The first attempt after it finds bluetoothd
    /// gone, and the drop is named for that; the lane is back when bluetoothd is.
    @Test func aDropWhoseFirstAttemptFindsBluetoothdGoneIsBluetoothUnavailable() async throws {
        let bench = try await LaneBench(scenario: ["reset-after=100"], configuration: LaneBench.lane(keepAlive: nil))
        let gone = LinkError(
            LinkError.Code(rawValue: "bluetoothd-not-running"), "org.bluez is not on the system bus",
            isHostBluetoothLoss: true)
        await bench.control.refuse(next: 3, with: gone)
        try await bench.pass(to: .seconds(100))
        let named = try await bench.stepping(within: .seconds(1)) {
            try await bench.waitForStatus { $0.lastDisconnect?.code == .bluetoothUnavailable }
        }
        #expect(named.lastDisconnect?.link?.code.rawValue == "bluetoothd-not-running")
        #expect(named.link.name == "reconnecting", "not resetting: the reader is awaited with Bluetooth")
        let back = try await bench.stepping(within: .seconds(30)) { try await bench.waitForStatus { $0.link == .ready } }
        #expect(back.lastDisconnect?.code == .bluetoothUnavailable)
        // The connection, three attempts finding bluetoothd gone (0.5, 1.5, 3.5 s after the
        // drop), one the reader refuses in its 8 s of silence (7.5 s), and one that connects
        // (15.5 s).
        #expect(await bench.control.attempts == 6)
    }

    /// A later attempt that finds bluetoothd gone says nothing of the drop before it.
    @Test func onlyTheFirstAttemptRevisesTheDropsReason() async throws {
        let bench = try await LaneBench(configuration: LaneBench.lane(keepAlive: nil))
        await bench.control.refuse(next: 1)
        await bench.control.refuse(
            next: 1, with: LinkError(LinkError.Code(rawValue: "bluetoothd-not-running"), "", isHostBluetoothLoss: true))
        try await bench.pass(to: .seconds(300))
        let back = try await bench.stepping(within: .seconds(30)) {
            try await bench.waitForStatus { $0.link == .ready && $0.lastDisconnect != nil }
        }
        #expect(back.lastDisconnect?.code == .idle)
        #expect(await bench.control.attempts == 4)
    }

    /// A reader that forgot this host refuses its bond: no attempt can help (it needs
    /// pairing mode, and a person), so the lane stops at `lost`, with the fix.
    @Test func aReaderThatForgotThisHostIsLostWithItsFixAndNotRetried() async throws {
        let bench = try await LaneBench(configuration: LaneBench.lane(keepAlive: nil))
        await bench.emulator.forgetAllBonds()
        try await bench.pass(to: .seconds(300))
        let lost = try await bench.stepping(within: .seconds(1)) {
            try await bench.waitForStatus { $0.link.name == "lost" }
        }
        guard case .lost(let reason) = lost.link else { return }
        #expect(reason.code == .bondLost)
        #expect(reason.fix?.contains("pairing mode") == true)
        #expect(!reason.isRecoverable)
        #expect(await bench.control.attempts == 2)
        guard case .lost(let link) = await bench.reader.state else {
            Issue.record("expected the connection lost")
            return
        }
        #expect(link.code == .bondLost)
    }

    // MARK: - The announced reset

    /// The reader announces its reset (`E0 04`, 100 s ahead); when the countdown runs out it
    /// drops the link and is silent for 8 s. The lane shows `resetting` meanwhile, names the
    /// drop `daily-reset`, and is ready once the reader is back; the next reset (400 s on)
    /// is met the same way.
    @Test func theScheduledResetIsExpectedAndTheReaderAwaited() async throws {
        let bench = try await LaneBench(scenario: ["reset-after=100", "reset-every=400"])
        let announced = try await bench.waitForStatus { $0.resetExpected != nil }
        #expect(announced.resetExpected == bench.wallClock.now().advanced(by: .seconds(100)))
        for resetAt in [Duration.seconds(100), .seconds(500)] {
            try await bench.idle(from: bench.now, until: resetAt)
            let resetting = try await bench.waitForStatus { $0.link == .resetting }
            #expect(resetting.lastDisconnect?.code == .dailyReset)
            #expect(resetting.resetExpected == nil)
            let back = try await bench.stepping(within: .seconds(10)) { try await bench.waitForStatus { $0.link == .ready } }
            #expect(back.lastDisconnect?.code == .dailyReset)
            #expect(bench.now >= resetAt + .seconds(8))
        }
        #expect(await bench.control.attempts >= 3)
    }

    /// A drop before the announced reset (here the reader's idle rule, at 60 s) leaves the
    /// reset ahead: the reader resets at its time whatever its links did meanwhile, and an
    /// announcement repeated on the next link may not reach this host (over BlueZ it can
    /// come before the host has subscribed). The status keeps the reset expected while the
    /// lane reconnects.
    @Test func aDropBeforeTheAnnouncedResetLeavesTheResetAhead() async throws {
        var configuration = LaneBench.lane(keepAlive: nil)
        configuration.readerIdleTimeout = .seconds(60)
        let bench = try await LaneBench(scenario: ["reset-after=100", "idle-timeout=60"], configuration: configuration)
        let announced = try await bench.waitForStatus { $0.resetExpected != nil }
        try await bench.pass(to: .seconds(60))
        let away = try await bench.waitForStatus { $0.link.name == "reconnecting" }
        #expect(away.lastDisconnect?.code == .idle)
        #expect(away.resetExpected == announced.resetExpected)
    }

    /// A reconnection that overlaps the announced reset (the reader's idle drop at 95 s,
    /// then attempts failing until past the reset's time, as a slow reconnection's would):
    /// the reset is not missed for having come between two links. The lane says resetting,
    /// the reset the last disconnect, and is ready once the reader is back.
    @Test func aResetThatComesWhileReconnectingIsNamed() async throws {
        var configuration = LaneBench.lane(keepAlive: nil)
        configuration.readerIdleTimeout = .seconds(95)
        let bench = try await LaneBench(scenario: ["reset-after=100", "idle-timeout=95"], configuration: configuration)
        _ = try await bench.waitForStatus { $0.resetExpected != nil }
        await bench.control.refuse(next: 4)
        try await bench.pass(to: .seconds(95))
        let away = try await bench.waitForStatus { $0.link.name == "reconnecting" }
        #expect(away.lastDisconnect?.code == .idle)
        let resetting = try await bench.stepping(within: .seconds(10)) { try await bench.waitForStatus { $0.link == .resetting } }
        #expect(resetting.lastDisconnect?.code == .dailyReset)
        #expect(resetting.resetExpected == nil)
        #expect(bench.now >= .seconds(98))
        let back = try await bench.stepping(within: .seconds(30)) { try await bench.waitForStatus { $0.link == .ready } }
        #expect(back.lastDisconnect?.code == .dailyReset)
    }

    /// Inside the warning, a command that could meet the reset waits for the reader's
    /// return within its own deadline: GET INFO (1.5 s) 2 s before the reset cannot see
    /// the reader back in time and fails `resetting`, with the time left; a swipe (31 s)
    /// waits through the reset and the 8 s of silence, then runs on the new link. GET INFO
    /// 20 s ahead goes out at once.
    @Test func aCommandThatCouldMeetTheResetWaitsForTheReaderOrFailsResetting() async throws {
        let bench = try await LaneBench(scenario: ["reset-after=20"])
        _ = try await bench.waitForStatus { $0.resetExpected != nil }
        #expect(try await bench.reader.info().model == "VPOS3356")
        // Nothing is due before the reset at 20 s but the stale GET INFO deadline.
        bench.clock.advance(by: .seconds(18))
        let early = Task { try await bench.reader.info() }
        let error = await #expect(throws: CardReaderError.self) {
            try await bench.stepping(within: .seconds(2)) { try await early.value }
        }
        #expect(error?.code == .resetting)
        #expect(error?.command == .getInfo)
        #expect(error?.timeLeft == .milliseconds(500))
        let swipe = Task { try await bench.reader.readMagneticStripe() }
        let tracks = try await bench.stepping(within: .seconds(10)) { try await swipe.value }
        #expect(tracks.track2.track != nil)
        #expect(bench.now >= .seconds(28))
        #expect(await bench.reader.status.lastDisconnect?.code == .dailyReset)
    }

    /// No update starts that the announced reset would cut: the transfer at 1 KB/s plus the
    /// restart's bounds (5 s + 45 s) do not fit in 30 s.
    @Test func noUpdateStartsThatTheAnnouncedResetWouldCut() async throws {
        let bench = try await LaneBench(scenario: ["reset-after=30"])
        _ = try await bench.waitForStatus { $0.resetExpected != nil }
        let error = await #expect(throws: CardReaderError.self) { try await bench.reader.updateFirmware(image: Self.image).run() }
        #expect(error?.code == .resetting)
        #expect(error?.command == .enterFirmwareUpdate)
        #expect(try await bench.reader.info().firmwareVersion == "3.1.0")
    }

    /// A reader that takes longer to come back from its firmware restart than the update
    /// waits (45 s, `FirmwareUpdateOptions.returnTimeout`): the update fails
    /// `firmware-reader-did-not-return`, and the lane goes on reconnecting (a reader kept
    /// for the day is not left disconnected) and is back, on the new firmware, once the
    /// reader is: here after 60 s of restart.
    @Test func aReaderSlowToReturnFromAnUpdateIsReconnectedByTheLane() async throws {
        var slow = EmulatedReaderConfiguration()
        slow.firmwareRestartTime = .seconds(60)
        let bench = try await LaneBench(readerConfiguration: slow)
        let update = Task { try await bench.reader.updateFirmware(image: Self.image).run() }
        let error = await bench.stepping(within: .seconds(1)) { await #expect(throws: CardReaderError.self) { try await update.value } }
        #expect(error?.firmwareUpdate?.code == .readerDidNotReturn)
        guard case .reconnecting = await bench.reader.status.link else {
            Issue.record("expected the lane reconnecting, got \(await bench.reader.status.link)")
            return
        }
        let back = try await bench.stepping(within: .seconds(30)) { try await bench.waitForStatus { $0.link == .ready } }
        #expect(back.lastDisconnect?.code == .firmwareRestart)
        #expect(bench.now >= .seconds(60))
        #expect(try await bench.reader.info().firmwareVersion == "3.2.0")
    }

    // MARK: - Waiting for a turn

    /// A command behind a swipe the cardholder is taking waits its own deadline (1.5 s for
    /// GET INFO), not the swipe's 30 s, and fails `queue-timed-out` without being sent.
    @Test func aCommandBehindALongOneFailsAtItsOwnDeadline() async throws {
        let bench = try await LaneBench(scenario: ["no-swipe"])
        let swipe = Task { try await bench.reader.readMagneticStripe(timeout: .seconds(30)) }
        _ = try await bench.waitForStatus { $0.link == .busy(.readMagneticStripe) }
        let info = Task { try await bench.reader.info() }
        try await bench.clock.advance(pastSleepOf: .milliseconds(1500))
        let error = await #expect(throws: CardReaderError.self) { try await info.value }
        #expect(error?.code == .queueTimedOut)
        #expect(error?.command == .getInfo)
        #expect(error?.waited == .milliseconds(1500))
        swipe.cancel()
        _ = await swipe.result
    }

    // MARK: - Status and battery

    /// The link's status follows the connection and a command; the keep-alive's GET INFO
    /// does not show as busy.
    @Test func theStatusFollowsTheLinkAndCommandsButNotTheKeepAlive() async throws {
        let bench = try await LaneBench(connect: false)
        let updates = await bench.reader.statusUpdates()
        let links = Task {
            var seen: [CardReader.Status.Link] = []
            for await status in updates where seen.last != status.link {
                seen.append(status.link)
                if seen.count > 1, status.link == .disconnected { break }
            }
            return seen
        }
        try await bench.reader.connect()
        _ = try await bench.reader.readMagneticStripe()
        try await bench.idle(from: bench.now, until: bench.now + .seconds(300))
        await bench.reader.disconnect()
        #expect(await links.value == [.disconnected, .connecting, .ready, .busy(.readMagneticStripe), .ready, .disconnected])
        #expect(await bench.reader.status.lastDisconnect?.code == .host)
    }

    /// The battery comes from the Battery service at connection, from the reader's
    /// battery-low event (`E0 03` as it falls below 20 %), and from GET INFO; each reading
    /// says where and when.
    @Test func theStatusCarriesTheBatteryFromEachSource() async throws {
        let bench = try await LaneBench(scenario: ["battery=22", "battery-drain=3600"])
        let first = try await bench.waitForStatus { $0.battery != nil }
        #expect(first.battery?.percent == 22)
        #expect(first.battery?.source == .batteryService)
        #expect(first.battery?.isLow == false)
        // Followed from before the battery falls: at 19 % the event and the service's level
        // arrive together, in either order.
        let updates = await bench.reader.statusUpdates()
        let lowEvent = Task { () -> BatteryReading? in
            for await status in updates where status.battery?.source == .lowBatteryEvent { return status.battery }
            return nil
        }
        try await bench.pass(to: .seconds(3))
        let low = await lowEvent.value
        #expect(low?.percent == 19)
        #expect(low?.isLow == true)
        #expect(low?.readAt == bench.wallClock.now())
        #expect(try await bench.reader.info().batteryPercent == 19)
        #expect(await bench.reader.status.battery?.source == .readerInfo)
    }

    /// A firmware update needs the battery level: with neither GET INFO's tag 04 nor the
    /// Battery service, it is refused before a byte is sent, unless the caller says the
    /// reader has no battery.
    @Test func anUpdateIsRefusedOnAnUnknownBatteryUnlessTheReaderHasNone() async throws {
        var configuration = EmulatedReaderConfiguration()
        configuration.info.batteryPercent = nil
        let bench = try await LaneBench(readerConfiguration: configuration, hidesBatteryService: true)
        #expect(try await bench.reader.info().batteryPercent == nil)
        let error = await #expect(throws: CardReaderError.self) { try await bench.reader.updateFirmware(image: Self.image).run() }
        #expect(error?.firmwareUpdate?.code == .batteryUnknown)
        #expect(error?.firmwareUpdate?.oldFirmwareKept == true)
        let report = try await bench.stepping(within: .seconds(5)) {
            try await bench.reader.updateFirmware(image: Self.image, options: FirmwareUpdateOptions(readerHasNoBattery: true)).run()
        }
        #expect(report.version == "3.2.0")
    }
}

/// An announced reset that never comes (the reader postponed it, or its countdown was off),
/// against a reader the test plays frame by frame.
@Suite(.timeLimit(.minutes(1)))
struct UnkeptResetTests {
    @Test func aResetThatDoesNotComeIsForgottenAndCommandsGoOn() async throws {
        let scripted = ScriptedReader()
        let clock = ManualClock()
        let reader = CardReader(connector: scripted.connector, configuration: .init(), clock: clock)
        try await reader.connect()
        try await scripted.send(ReaderEvent.resetScheduled(secondsUntilReset: 5).frame)
        try await scripted.waitUntilHostHasHandledEverything()
        #expect(await reader.status.resetExpected != nil)
        // 30 s after the announced time, with the link still up, the reset is forgotten.
        try await clock.advance(pastSleepOf: .seconds(35))
        await reader.waitUntilQuiet()
        #expect(await reader.status.resetExpected == nil)
        // GET INFO asked now goes out at once: nothing waits for a reset.
        let info = Task { try await reader.info() }
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(ReaderInfo(model: "VPOS3356")))
        #expect(try await info.value.model == "VPOS3356")
    }
}
