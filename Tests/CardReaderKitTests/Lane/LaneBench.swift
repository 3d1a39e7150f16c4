import CardReaderKit
import CardReaderKitTesting
import ManualClockSteps
import ReaderProtocol
/// One lane on one ManualClock: an emulated reader, a controlled connector in front of it,
/// and a `CardReader` configured as the test says. Time passes one timer at a time, each
/// once the host has handled what the reader sent, so every timer on the way comes due at
/// its time. A connection attempt to a silent reader is refused at once rather than held
/// until the reader runs: every attempt ends before time moves on.
struct LaneBench {
    let clock = ManualClock()
    let wallClock: ManualWallClock
    let emulator: EmulatedReader
    let control = ConnectorControl()
    let reader: CardReader

    /// A reconnect policy without jitter: waits of exactly 0.5 s, 1 s, 2 s, … 30 s, forever.
    static let steadyAlways = ReconnectPolicy(
        maximumAttempts: nil, initialDelay: .milliseconds(500), maximumDelay: .seconds(30), jitter: 0, overallDeadline: nil)

    /// The lane's configuration with `steadyAlways`; `keepAlive` nil turns the keep-alive off.
    static func lane(keepAlive: Duration? = .seconds(240)) -> CardReader.Configuration {
        var configuration = CardReader.Configuration.lane
        configuration.reconnect = steadyAlways
        configuration.keepAliveInterval = keepAlive
        return configuration
    }

    init(
        card: EmulatedCard? = .visaTest, scenario: [String] = [],
        readerConfiguration: EmulatedReaderConfiguration = EmulatedReaderConfiguration(),
        configuration: CardReader.Configuration = LaneBench.lane(), hidesBatteryService: Bool = false, mtu: Int = 23,
        connect: Bool = true
    ) async throws {
        wallClock = ManualWallClock(clock, startingAt: WallClockTime(secondsSince1970: 1_795_852_800))  // 2026-11-28 08:00 UTC
        emulator = EmulatedReader(
            card: card, scenario: try EmulatorScenario(parsing: scenario), configuration: readerConfiguration, clock: clock)
        reader = CardReader(
            connector: ControlledConnector(
                base: EmulatedReaderConnector(reader: emulator, mtu: mtu, waitsForASilentReader: false), control: control,
                hidesBatteryService: hidesBatteryService),
            configuration: configuration, clock: clock, wallClock: wallClock)
        if connect { try await reader.connect() }
    }

    /// Time since the bench started.
    var now: Duration { clock.now.offset }

    /// Lets time pass to `target` (since the bench started), from one timer to the next —
    /// the reader's, the host's, any task's sleep — each once the host and the reader have
    /// done what the last one asked (``settle()``), so nothing overtakes a reaction and
    /// every timer comes due at its time.
    func pass(to target: Duration) async throws {
        var standingStill = 0
        while clock.now.offset < target {
            let mark = clock.sleepsBegun
            try await settle()
            let step = min(target - clock.now.offset, await nextTimer() ?? .seconds(86_400 * 365))
            let before = clock.now
            clock.advance(toNextSleeperWithin: step, orToHorizon: true, ifNoSleepBegunSince: mark)
            // A step refused (a sleep began meanwhile) is taken again once that sleeper is
            // seen; time that stands still for many steps is a timer that never gets done.
            standingStill = clock.now == before ? standingStill + 1 : 0
            if standingStill > 1000 {
                throw ScriptedReader.Timeout(
                    what: "time to move on from \(before) (next timer in \(String(describing: await nextTimer())), \(await reader.notQuietBecause))")
            }
        }
        try await settle()
    }

    /// How long until the emulated reader's or the host's next timer is due, if one is set:
    /// the farthest a step may go, even before the task that sleeps for it is asleep.
    func nextTimer() async -> Duration? {
        [await emulator.timeUntilNextTimer, await reader.timeUntilNextTimer].compactMap(\.self).min().map { max(.zero, $0) }
    }

    /// Waits until nothing the host started is on its way: the reader's notifications
    /// handled (a drop, until the host has closed its link), no command's answer awaited
    /// (the reader answers at once here) and none about to start (a keep-alive, a scheduled
    /// update, a reconnection, begun by the host's own timers), no link being opened, no
    /// back-off woken and not yet acted on, no firmware block half written
    /// (`CardReader.waitUntilQuiet()`). Bounded in real time; the error then says what kept
    /// the reader busy.
    func settle() async throws {
        await emulator.waitUntilQuiet()
        try await control.waitUntilHostHasHandled(await emulator.sentOnLatestConnection)
        let reader = reader
        let quiet = Task { await reader.waitUntilQuiet() }
        let alarm = Task { () -> Bool in
            // Cancelled once the reader is quiet: then it does nothing.
            guard (try? await Task.sleep(for: WaitBound.inProcess)) != nil else { return false }
            quiet.cancel()
            return true
        }
        await quiet.value
        alarm.cancel()
        if await alarm.value { throw ScriptedReader.Timeout(what: "the reader quiet (\(await reader.notQuietBecause))") }
        // A link the reader's quiet waited for (a reconnection) may have brought what the
        // emulated reader sends at connection (a reset warning, a low battery).
        try await control.waitUntilHostHasHandled(await emulator.sentOnLatestConnection)
        let emulator = emulator
        try await control.waitUntilHostIsNotWriting { await emulator.isTakingABlockFromTheHost }
    }

    /// Lets `duration` pass, one timer at a time.
    func pass(_ duration: Duration) async throws {
        try await pass(to: now + duration)
    }

    /// Steps time on while `body` runs (a command that waits for the reader's reset, a
    /// reconnection, a firmware update), one timer at a time within `horizon`, each once
    /// the host has handled what the reader sent and is not part way through writing a
    /// firmware block; returns what `body` returns.
    func stepping<Value: Sendable>(
        within horizon: Duration, _ body: @Sendable () async throws -> Value
    ) async rethrows -> Value {
        let stepper = ClockStepper(clock, throughSleepsWithin: horizon) { try await settle() } nextDue: { await nextTimer() }
        defer { stepper.stop() }
        return try await body()
    }

    /// Waits until the reader's status satisfies `condition` (bounded in real time).
    func waitForStatus(_ condition: @escaping @Sendable (CardReader.Status) -> Bool) async throws -> CardReader.Status {
        let updates = await reader.statusUpdates()
        let found = Task { () -> CardReader.Status? in
            for await status in updates where condition(status) { return status }
            return nil
        }
        let alarm = Task {
            guard (try? await Task.sleep(for: WaitBound.inProcess)) != nil else { return }
            found.cancel()
        }
        defer { alarm.cancel() }
        guard let status = await found.value else { throw ScriptedReader.Timeout(what: "a status") }
        return status
    }

    /// Lets time pass to `target` on an idle link, meeting each keep-alive as it comes: time
    /// goes to the keep-alive's moment, then waits until its GET INFO has been answered
    /// (the battery reading it brings is dated now), so that the next step cannot overtake
    /// it. `lastActivity` is when the link last carried a command's answer.
    func idle(from lastActivity: Duration, until target: Duration, keepAlive: Duration = .seconds(240)) async throws {
        var due = lastActivity + keepAlive
        while due <= target {
            try await pass(to: due)
            let moment = wallClock.now()
            _ = try await waitForStatus { $0.battery?.source == .readerInfo && $0.battery?.readAt == moment }
            due = now + keepAlive
        }
        try await pass(to: target)
    }
}
