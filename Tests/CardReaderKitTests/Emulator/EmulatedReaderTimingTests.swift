import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Testing

/// Waits and timeouts (documentation §8), driven by a ManualClock: tests wait until the
/// reader sleeps on the clock, then advance it. No real time passes.
@Suite(.timeLimit(.minutes(1))) struct EmulatedReaderTimingTests {
    @Test(arguments: [23, 247]) func swipeTimesOutAfterTheDefault30Seconds(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["no-swipe"], mtu: mtu)
        // `00 00` asks for the reader default, 30 s (§3).
        try await host.send(.readMagneticStripe(timeoutSeconds: 0))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(29))
        // At 29 s the swipe still waits: another command is busy.
        #expect(try await host.exchange(.iccStatus).status == .busy)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(1))
        #expect(try await host.nextResponse() == ReaderResponse(code: .readMagneticStripe, status: .cardholderTimeout))
        #expect(host.clock.now.offset == .seconds(30))
    }

    @Test func swipeTimesOutAfterTheRequestedSeconds() async throws {
        var host = try await EmulatorHost(scenario: ["no-swipe"])
        try await host.send(.readMagneticStripe(timeoutSeconds: 5))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(5))
        #expect(try await host.nextResponse().status == .cardholderTimeout)
    }

    @Test(arguments: [23, 247]) func swipeAfterNSecondsAnswersTheTracksThen(mtu: Int) async throws {
        var host = try await EmulatorHost(card: .visaSwipeOnly, scenario: ["swipe-after=2"], mtu: mtu)
        try await host.send(.readMagneticStripe(timeoutSeconds: 0))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(1))
        #expect(try await host.exchange(.getInfo).status == .busy)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(1))
        let response = try await host.nextResponse()
        #expect(response.status == .success)
        guard case .magneticStripe(let tracks) = response.body else { return #expect(Bool(false), "no tracks") }
        // The documentation's example tracks (§9); track 3 absent.
        #expect(tracks.rawTracks[0].revealed() == Array("%B4111111111111111^DOE/JOHN^2512101000000000000000?".utf8))
        #expect(tracks.rawTracks[1].revealed() == Array(";4111111111111111=25121010000000000000?".utf8))
        #expect(tracks.rawTracks[2].isEmpty)
    }

    @Test func aSwipeDueAtTheTimeoutNeverHappens() async throws {
        var host = try await EmulatorHost(scenario: ["swipe-after=10"])
        try await host.send(.readMagneticStripe(timeoutSeconds: 10))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(10))
        #expect(try await host.nextResponse().status == .cardholderTimeout)
    }

    @Test func withoutACardNobodySwipes() async throws {
        var host = try await EmulatorHost(card: nil)
        try await host.send(.readMagneticStripe(timeoutSeconds: 3))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(3))
        #expect(try await host.nextResponse().status == .cardholderTimeout)
    }

    @Test(arguments: [23, 247]) func powerOnWaitsForInsertion(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["insert-after=3"], mtu: mtu)
        try await host.send(.iccPowerOn(insertionWaitSeconds: 10))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(3))
        // Insertion is announced, then POWER ON answers with the card's ATR (§9's example ATR).
        #expect(try await host.nextEvent() == .cardInserted)
        let response = try await host.nextResponse()
        #expect(response.status == .success)
        #expect(response.body.fields == hex("3B 68 00 00 00 73 C8 40 13 00 90 00"))
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.cardPowered))
    }

    /// The default cardholder inserts the card when POWER ON asks for one, as the default one
    /// swipes when READ MAGNETIC STRIPE does: `E0 01`, then the ATR (§9's example).
    @Test func aWaitingPowerOnGetsTheCardAtOnceByDefault() async throws {
        var host = try await EmulatorHost()
        try await host.send(.iccPowerOn(insertionWaitSeconds: 30))
        #expect(try await host.nextEvent() == .cardInserted)
        let response = try await host.nextResponse()
        #expect(response.status == .success)
        #expect(response.body.fields == hex("3B 68 00 00 00 73 C8 40 13 00 90 00"))
    }

    /// Without a wait, an empty slot is `04` whatever the cardholder would do (§5.1).
    @Test func powerOnWithoutAWaitFindsTheSlotEmpty() async throws {
        var host = try await EmulatorHost()
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .noCard)
    }

    @Test func insertWhenAskedWaitsItsDelay() async throws {
        var host = try await EmulatorHost(scenario: ["insert-when-asked=2"])
        try await host.send(.iccPowerOn(insertionWaitSeconds: 5))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(2))
        #expect(try await host.nextEvent() == .cardInserted)
        #expect(try await host.nextResponse().status == .success)
    }

    /// An insertion due when the wait ends never happens, as a swipe due at the timeout does not.
    @Test func insertionDueAfterTheWaitNeverHappens() async throws {
        var host = try await EmulatorHost(scenario: ["insert-when-asked=5"])
        try await host.send(.iccPowerOn(insertionWaitSeconds: 5))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(5))
        #expect(try await host.nextResponse().status == .cardholderTimeout)
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.noCard))
    }

    @Test func powerOnTimesOutWhenNoCardComes() async throws {
        var host = try await EmulatorHost(scenario: ["no-insert"])
        try await host.send(.iccPowerOn(insertionWaitSeconds: 4))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(4))
        #expect(try await host.nextResponse() == ReaderResponse(code: .iccPowerOn, status: .cardholderTimeout))
    }

    @Test(arguments: [23, 247]) func anIdleLinkDropsAfterFiveMinutes(mtu: Int) async throws {
        var host = try await EmulatorHost(mtu: mtu)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(200))
        // A command restarts the idle period.
        #expect(try await host.exchange(.iccStatus).status == .success)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(299))
        #expect(try await host.exchange(.iccStatus).status == .success)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(300))
        // The link says what BlueZ would; the reader knows why.
        #expect(await host.waitForLinkEnd()?.code == .remoteDisconnected)
        #expect(await host.reader.lastDropCause?.code.rawValue == "idle-timeout")
        let error = await #expect(throws: LinkError.self) { try await host.send(.getInfo) }
        #expect(error?.code.rawValue == "not-connected")
    }

    @Test func theIdleTimerDoesNotRunWhileACommandWaits() async throws {
        var host = try await EmulatorHost(scenario: ["no-swipe"])
        try await host.send(.readMagneticStripe(timeoutSeconds: 400))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(400))
        // Had the idle timer run, the link would have dropped at 300 s.
        #expect(try await host.nextResponse().status == .cardholderTimeout)
        #expect(host.dropReason == nil)
    }
}

/// What the reader announces at a connection, over a transport that connects before the
/// host subscribes to TX (BlueZ): nothing until the subscription, as nothing sent before it
/// could reach the host; then its low battery (`E0 03`) and the reset due (`E0 04`).
@Suite struct EmulatedReaderSubscriptionTests {
    @Test func whatTheReaderAnnouncesAtAConnectionWaitsForTheSubscription() async throws {
        let reader = EmulatedReader(scenario: try EmulatorScenario(parsing: ["battery=10", "reset-after=60"]), clock: ManualClock())
        let connection = try await reader.connect(maximumNotificationLength: 20, subscribed: false)
        #expect(await reader.sentOnLatestConnection.items == 0)
        await reader.hostSubscribed(connection: connection.id)
        await reader.disconnect(connection: connection.id)
        var decoder = FrameDecoder()
        var events: [ReaderEvent] = []
        for await item in connection.notifications {
            guard case .notification(let bytes) = item else { continue }
            for case .frame(let frame, _) in decoder.decode(bytes) { events.append(try ReaderEvent(frame: frame)) }
        }
        #expect(events == [.batteryLow(percent: 10), .resetScheduled(secondsUntilReset: 60)])
    }
}
