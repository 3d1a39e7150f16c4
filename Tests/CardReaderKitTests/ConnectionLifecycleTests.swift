import BLETransport
import Testing
import CardReaderKit
import CardReaderKitTesting
import ManualClockSteps
import ReaderProtocol

/// Connecting, disconnecting and reconnecting, against a reader the test plays frame by
/// frame, on a ManualClock. The reconnect policy has no jitter here, so its waits are
/// exactly 1 s, 2 s, 4 s …
@Suite(.timeLimit(.minutes(1)))
struct ConnectionLifecycleTests {
    let scripted = ScriptedReader()
    let control = ConnectorControl()
    let clock = ManualClock()
    static let drop = LinkError(.remoteDisconnected, "the reader went away")
    static let policy = ReconnectPolicy(
        maximumAttempts: 3, initialDelay: .seconds(1), maximumDelay: .seconds(8), multiplier: 2, jitter: 0,
        overallDeadline: .seconds(60))

    func makeReader(reconnect: ReconnectPolicy? = nil) -> CardReader {
        CardReader(
            connector: ControlledConnector(base: scripted.connector, control: control),
            configuration: .init(reconnect: reconnect), clock: clock)
    }

    /// Starts a connect whose attempt the test holds (until `control.release()`), and
    /// returns once the attempt has begun.
    func startHeldConnect(_ reader: CardReader) async throws -> Task<Void, any Error> {
        await control.hold()
        let connecting = Task { try await reader.connect() }
        try await control.waitForAttempts(1)
        return connecting
    }

    /// Drops the link and waits until the reader has seen the drop and started reconnecting.
    func dropAndWaitForTheReconnection(_ reader: CardReader) async {
        var states = await reader.stateUpdates().makeAsyncIterator()
        await scripted.drop(Self.drop)
        while let state = await states.next(), state != .reconnecting(attempt: 1) {}
    }

    /// Collects a stream to its end (the suite's time limit bounds a stream that never ends).
    func everything(_ events: AsyncStream<CardReaderEvent>) async -> [CardReaderEvent] {
        var all: [CardReaderEvent] = []
        for await event in events { all.append(event) }
        return all
    }

    @Test func twoConnectsAtOnceShareOneAttemptAndBothSucceed() async throws {
        let reader = makeReader()
        let first = try await startHeldConnect(reader)
        let second = Task { try await reader.connect() }
        await control.release()
        try await first.value
        try await second.value
        #expect(await control.attempts == 1)
        #expect(await reader.state == .connected)
        // The link the second caller got is real: a command goes through it.
        let info = Task { try await reader.info() }
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(ReaderInfo(model: "VPOS3356")))
        #expect(try await info.value.model == "VPOS3356")
    }

    @Test func connectWhileConnectedOpensNothing() async throws {
        let reader = makeReader()
        try await reader.connect()
        try await reader.connect()
        #expect(await control.attempts == 1)
        #expect(await reader.state == .connected)
    }

    @Test func disconnectDuringConnectEndsItWithNotConnected() async throws {
        let reader = makeReader()
        let connecting = try await startHeldConnect(reader)
        await reader.disconnect()
        await #expect(throws: CardReaderError.notConnected) { try await connecting.value }
        #expect(await reader.state == .disconnected)
        // A later connect starts afresh and works.
        await control.release()
        try await reader.connect()
        #expect(await reader.state == .connected)
    }

    /// GET INFO asked for while the first connect is still opening the link (a service
    /// whose client calls as it starts) waits for the link, then goes out on it.
    @Test func aCommandAskedForWhileConnectingGoesOutOnceTheLinkIsThere() async throws {
        let reader = makeReader()
        let connecting = try await startHeldConnect(reader)
        let info = Task { try await reader.info() }
        // It waits for the link (until its own deadline, 0.5 s + 1 s), sending nothing.
        try await clock.waitForSleepers(dueWithin: .milliseconds(1500))
        await control.release()
        try await connecting.value
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(ReaderInfo(model: "VPOS3356")))
        #expect(try await info.value.model == "VPOS3356")
    }

    /// A swipe (a 30 s deadline) asked for while the first connect is opening the link
    /// fails with it, at once: when the connect gives up (its 5 s), not at the swipe's end.
    @Test func aCommandWaitingForTheFirstConnectFailsWithIt() async throws {
        let reader = makeReader()
        let connecting = try await startHeldConnect(reader)
        let swipe = Task { try await reader.readMagneticStripe() }
        try await clock.waitForSleepers(dueNoSoonerThan: .seconds(30), dueWithin: .seconds(40))
        try await clock.advance(toSleeperAt: .seconds(5))
        await #expect(throws: CardReaderError.self) { try await connecting.value }
        // A swipe still waiting is cancelled at the suite's time limit: it then fails with
        // `cancelled`, not `notConnected`, rather than hanging the run.
        _ = await withTaskCancellationHandler {
            await #expect(throws: CardReaderError.notConnected) { try await swipe.value }
        } onCancel: {
            swipe.cancel()
        }
        #expect(await reader.state == .disconnected)
        #expect(await control.attempts == 1)
    }

    /// The README's `for await event in await reader.events()` loop ends.
    @Test func eventsFinishWhenTheHostDisconnects() async throws {
        let reader = makeReader()
        try await reader.connect()
        let events = await reader.events()
        try await scripted.send(ReaderEvent.cardInserted.frame)
        try await scripted.waitUntilHostHasHandledEverything()
        await reader.disconnect()
        #expect(await everything(events) == [.cardInserted, .disconnected(nil)])
    }

    @Test func withoutAPolicyEventsFinishWhenTheLinkDrops() async throws {
        let reader = makeReader()
        try await reader.connect()
        let events = await reader.events()
        await scripted.drop(Self.drop)
        #expect(await everything(events) == [.disconnected(Self.drop)])
        #expect(await reader.state == .lost(Self.drop))
        #expect(await control.attempts == 1)
    }

    /// The swipe in flight fails with linkLost and is never sent again; the reconnection's
    /// progress shows as events and states; GET INFO issued while reconnecting waits, then
    /// goes out on the new link.
    @Test func aDropIsReconnectedAndTheCommandInFlightIsNotRetried() async throws {
        let reader = makeReader(reconnect: Self.policy)
        var states = await reader.stateUpdates().makeAsyncIterator()
        #expect(await states.next() == .disconnected)
        try await reader.connect()
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .connected)
        var events = await reader.events().makeAsyncIterator()

        let swipe = Task { try await reader.readMagneticStripe() }
        #expect(try await scripted.nextCommand() == .readMagneticStripe(timeoutSeconds: 30))
        await scripted.drop(Self.drop)
        await #expect(throws: CardReaderError.linkLost(Self.drop)) { try await swipe.value }
        #expect(await states.next() == .reconnecting(attempt: 1))
        #expect(await events.next() == .reconnecting(attempt: 1, after: Self.drop))

        let info = Task { try await reader.info() }
        try await clock.waitForSleepers(dueWithin: .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(await states.next() == .connected)
        #expect(await events.next() == .reconnected)
        #expect(try await scripted.nextCommand() == .getInfo)  // not the swipe again
        try await scripted.answer(.getInfo, .success, .info(ReaderInfo(model: "VPOS3356")))
        #expect(try await info.value.model == "VPOS3356")
        #expect(await control.attempts == 2)
    }

    /// Every attempt is refused: attempts come after 1 s, 2 s and 4 s, then the policy gives
    /// up; the events stream ends with the drop's reason and the state is `lost`.
    @Test func aPolicyThatGivesUpEndsTheConnection() async throws {
        let reader = makeReader(reconnect: Self.policy)
        try await reader.connect()
        let events = await reader.events()
        await control.refuse(next: 3)
        await scripted.drop(Self.drop)
        for (attempt, wait) in [(2, 1), (3, 2), (4, 4)] {
            try await clock.waitForSleepers(dueWithin: .seconds(wait))
            clock.advance(by: .seconds(wait))
            try await control.waitForAttempts(attempt)
        }
        #expect(await everything(events) == [
            .reconnecting(attempt: 1, after: Self.drop), .reconnecting(attempt: 2, after: Self.drop),
            .reconnecting(attempt: 3, after: Self.drop), .disconnected(Self.drop),
        ])
        #expect(await reader.state == .lost(Self.drop))
        await #expect(throws: CardReaderError.notConnected) { try await reader.info() }
    }

    /// A command issued while reconnecting waits up to its own deadline (GET INFO: 0.5 s +
    /// 1 s), then fails with the drop's reason; the reconnection goes on.
    @Test func aCommandWaitsForTheLinkUpToItsDeadline() async throws {
        let reader = makeReader(reconnect: ReconnectPolicy(maximumAttempts: 3, initialDelay: .seconds(5), jitter: 0))
        try await reader.connect()
        await dropAndWaitForTheReconnection(reader)
        let info = Task { try await reader.info() }
        try await clock.waitForSleepers(dueWithin: .milliseconds(1500))
        clock.advance(by: .milliseconds(1500))
        await #expect(throws: CardReaderError.linkLost(Self.drop)) { try await info.value }
        #expect(await reader.state == .reconnecting(attempt: 1))
    }

    @Test func connectDuringAReconnectionSharesItsOutcome() async throws {
        let reader = makeReader(reconnect: Self.policy)
        try await reader.connect()
        await dropAndWaitForTheReconnection(reader)
        let connecting = Task { try await reader.connect() }
        try await clock.waitForSleepers(dueWithin: .seconds(1))
        clock.advance(by: .seconds(1))
        try await connecting.value
        #expect(await reader.state == .connected)
        #expect(await control.attempts == 2)
    }

    @Test func disconnectStopsAReconnection() async throws {
        let reader = makeReader(reconnect: Self.policy)
        try await reader.connect()
        let events = await reader.events()
        await scripted.drop(Self.drop)
        try await clock.waitForSleepers(dueWithin: .seconds(1))
        await reader.disconnect()
        #expect(await everything(events) == [.reconnecting(attempt: 1, after: Self.drop), .disconnected(nil)])
        // Stopping cancels the reconnection's waits at once: nothing sleeps on the clock.
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(10))
        #expect(await reader.state == .disconnected)
        #expect(await control.attempts == 1)
    }

    @Test func policyWaitsGrowAndAreCapped() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(3), multiplier: 2)
        #expect((1...5).map { policy.nominalDelay(beforeAttempt: $0) } == [
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3),
        ])
    }
}
