import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Testing

/// Each scenario step, driven through the link as a host would see it.
@Suite(.timeLimit(.minutes(1))) struct EmulatorScenarioTests {
    @Test(arguments: [23, 247]) func badSwipeAnswersUnreadable(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["bad-swipe"], mtu: mtu)
        #expect(try await host.exchange(.readMagneticStripe(timeoutSeconds: 0))
            == ReaderResponse(code: .readMagneticStripe, status: .unreadableStripe))
    }

    @Test func aChipOnlySwipeReadsNoTrack() async throws {
        var card = EmulatedCard.mastercardTest
        card.magneticStripe = nil
        var host = try await EmulatorHost(card: card)
        #expect(try await host.exchange(.readMagneticStripe(timeoutSeconds: 0)).status == .unreadableStripe)
    }

    @Test func theDefaultCardholderSwipesAtOnce() async throws {
        var host = try await EmulatorHost(card: .visaTest)
        let response = try await host.exchange(.readMagneticStripe(timeoutSeconds: 0))
        guard case .magneticStripe(let tracks) = response.body else { return #expect(Bool(false)) }
        // Service code 201 on the chip card's track 2: chip present.
        #expect(tracks.track2.track?.serviceCode?.description.contains("201") == true)
        #expect(tracks.track1.track?.passesLuhn == true)
        #expect(host.clock.now.offset == .zero)
    }

    @Test(arguments: [23, 247]) func removeCardDuringAPDUAnnouncesRemovalThenAnswersCardRemoved(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["card-inserted", "remove-card-during-apdu"], mtu: mtu)
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .success)
        try await host.send(.iccAPDU(try .select(name: Array("2PAY.SYS.DDF01".utf8))))
        #expect(try await host.nextEvent() == .cardRemoved)
        #expect(try await host.nextResponse() == ReaderResponse(code: .iccAPDU, status: .cardRemoved))
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.noCard))
    }

    @Test func removeCardDuringTheSecondAPDU() async throws {
        var host = try await EmulatorHost(scenario: ["card-inserted,remove-card-during-apdu=2"])
        _ = try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0))
        let select = try CommandAPDU.select(name: Array("2PAY.SYS.DDF01".utf8))
        #expect(try await host.exchange(.iccAPDU(select)).status == .success)
        try await host.send(.iccAPDU(select))
        #expect(try await host.nextEvent() == .cardRemoved)
        #expect(try await host.nextResponse().status == .cardRemoved)
    }

    @Test func removeAfterNSecondsAnnouncesTheRemoval() async throws {
        var host = try await EmulatorHost(scenario: ["remove-after=7"])
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.cardPresent))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(7))
        #expect(try await host.nextEvent() == .cardRemoved)
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.noCard))
    }

    @Test(arguments: [23, 247]) func insertAfterNSecondsAnnouncesTheInsertion(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["insert-after=4"], mtu: mtu)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(4))
        // The documentation's card-inserted event bytes (§9).
        let frame = try #require(await host.nextFrame())
        #expect(try frame.encoded() == hex("02 E0 01 00 00 37 1A"))
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.cardPresent))
    }

    @Test(arguments: [23, 247]) func lowBatteryWarnsOnConnectAndRefusesSwipeAndPowerOn(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["low-battery=7", "card-inserted"], mtu: mtu)
        #expect(try await host.nextEvent() == .batteryLow(percent: 7))
        #expect(try await host.exchange(.readMagneticStripe(timeoutSeconds: 0)).status == .batteryTooLow)
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .batteryTooLow)
        guard case .info(let info) = try await host.exchange(.getInfo).body else { return #expect(Bool(false)) }
        #expect(info.batteryPercent == 7)
    }

    @Test func aBatteryBetweenTheThresholdsWarnsButStillWorks() async throws {
        var host = try await EmulatorHost(scenario: ["battery=15", "card-inserted"])
        #expect(try await host.nextEvent() == .batteryLow(percent: 15))
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .success)
    }

    @Test(arguments: [23, 247]) func scheduledResetAnnouncesItselfThenDropsTheLink(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["reset-after=90"], mtu: mtu)
        #expect(try await host.nextEvent() == .resetScheduled(secondsUntilReset: 90))
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(89))
        #expect(try await host.exchange(.iccStatus).status == .success)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(1))
        // The link says what BlueZ would; the reader knows why.
        #expect(await host.waitForLinkEnd()?.code == .remoteDisconnected)
        #expect(await host.reader.lastDropCause?.code.rawValue == "reader-reset")
    }

    @Test func reconnectingBeforeTheResetAnnouncesTheSecondsLeft() async throws {
        let host = try await EmulatorHost(scenario: ["reset-after=90"])
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(30))
        await host.link.close()
        var second = try await EmulatorHost(connectingTo: host.reader, clock: host.clock)
        #expect(try await second.nextEvent() == .resetScheduled(secondsUntilReset: 60))
    }

    @Test func busyAnswersEveryCommandButCancel() async throws {
        var host = try await EmulatorHost(scenario: ["busy"])
        #expect(try await host.exchange(.getInfo) == ReaderResponse(code: .getInfo, status: .busy))
        #expect(try await host.exchange(.iccStatus).status == .busy)
        #expect(try await host.exchange(.cancel).status == .success)
    }

    @Test func busyForTheNthCommandOnly() async throws {
        var host = try await EmulatorHost(scenario: ["busy=2"])
        #expect(try await host.exchange(.iccStatus).status == .success)
        #expect(try await host.exchange(.iccStatus).status == .busy)
        #expect(try await host.exchange(.iccStatus).status == .success)
    }

    @Test func silenceSwallowsTheNthCommand() async throws {
        var host = try await EmulatorHost(scenario: ["silent=1"])
        try await host.send(.getInfo)
        // The first answer is ICC STATUS's: GET INFO was never answered.
        #expect(try await host.exchange(.iccStatus).code == .iccStatus)
    }

    @Test func totalSilenceNeverAnswers() async throws {
        var host = try await EmulatorHost(scenario: ["silent"])
        try await host.send(.getInfo)
        try await host.send(.cancel)
        try await host.clock.waitForSleepers()
        host.clock.advance(by: .seconds(300))
        // Swallowed commands are no activity: the idle timeout ends the link with no frame sent.
        #expect(await host.nextFrame() == nil)
        #expect(host.dropReason?.code == .remoteDisconnected)
        #expect(await host.reader.lastDropCause?.code.rawValue == "idle-timeout")
        #expect(host.notifications.isEmpty)
    }

    @Test(arguments: [23, 247]) func aCorruptedNotificationLosesItsFrame(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["corrupt-notification=1"], mtu: mtu)
        try await host.send(.iccStatus)
        try await host.send(.getInfo)
        // ICC STATUS's only notification was corrupted: the host sees GET INFO's answer first.
        #expect(try await host.nextResponse().code == .getInfo)
        #expect(host.damage.contains { $0.reason.identifier == "checksum-mismatch" })
    }

    @Test(arguments: [23, 247]) func aDroppedNotificationNeverArrives(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["drop-notification=1"], mtu: mtu)
        try await host.send(.iccStatus)
        try await host.send(.getInfo)
        #expect(try await host.nextResponse().code == .getInfo)
        #expect(host.damage.isEmpty)
    }

    @Test(arguments: [23, 247]) func noiseBetweenFramesIsSkippedByTheHost(mtu: Int) async throws {
        var host = try await EmulatorHost(card: .visaSwipeOnly, scenario: ["noise=3"], mtu: mtu)
        #expect(try await host.exchange(.iccStatus).status == .success)
        #expect(try await host.exchange(.readMagneticStripe(timeoutSeconds: 0)).status == .success)
        #expect(host.notifications.first == [0x55, 0xAA, 0xFF])
        #expect(host.damage.map(\.reason.identifier) == ["noise", "noise"])
    }

    @Test func noiseLongerThanANotificationIsSplitAtTheMTU() async throws {
        var host = try await EmulatorHost(scenario: ["noise=45"])
        #expect(try await host.exchange(.iccStatus).status == .success)
        // 45 noise bytes at MTU 23: 20 + 20 + 5, then the 9-byte response (7 framing, status, slot state).
        #expect(host.notifications.map(\.count) == [20, 20, 5, 9])
    }

    @Test(arguments: [23, 247]) func theLinkDropsMidFrame(mtu: Int) async throws {
        var host = try await EmulatorHost(card: .visaSwipeOnly, scenario: ["drop-mid-frame=2"], mtu: mtu)
        #expect(try await host.exchange(.iccStatus).status == .success)
        try await host.send(.readMagneticStripe(timeoutSeconds: 0))
        // The link says what BlueZ would; the reader knows why.
        #expect(await host.waitForLinkEnd()?.code == .remoteDisconnected)
        #expect(await host.reader.lastDropCause?.code.rawValue == "emulator-dropped")
        // Half of the 101-byte swipe response (50 bytes) arrived: a truncated frame.
        #expect(host.notifications.dropFirst().reduce(0) { $0 + $1.count } == 50)
        #expect(host.damage.map(\.reason.identifier) == ["truncated"])
        let error = await #expect(throws: LinkError.self) { try await host.send(.iccStatus) }
        #expect(error?.code.rawValue == "not-connected")
    }
}

/// The CLI syntax.
@Suite struct EmulatorScenarioParsingTests {
    @Test func stepsCombineAcrossArgumentsAndCommas() throws {
        let scenario = try EmulatorScenario(parsing: ["swipe-after=2,bad-swipe", "remove-card-during-apdu", "busy=3", "noise"])
        var expected = EmulatorScenario()
        expected.swipe = .after(.seconds(2))
        expected.badSwipe = true
        expected.removeDuringAPDU = 1
        expected.busy = .number(3)
        expected.noiseLength = 4
        #expect(scenario == expected)
    }

    @Test func everyStepParses() throws {
        let scenario = try EmulatorScenario(parsing: [
            "no-swipe", "card-inserted", "insert-after=1", "remove-after=2", "low-battery", "reset-after=60", "silent",
            "corrupt-notification=4", "drop-notification=5", "drop-mid-frame",
        ])
        #expect(scenario.swipe == .never)
        #expect(scenario.cardInsertedAtStart)
        #expect(scenario.insertAfter == .seconds(1))
        #expect(scenario.removeAfter == .seconds(2))
        #expect(scenario.batteryPercent == 5)
        #expect(scenario.resetAfter == 60)
        #expect(scenario.silent == .every)
        #expect(scenario.corruptNotification == 4)
        #expect(scenario.dropNotification == 5)
        #expect(scenario.dropMidFrame == 1)
    }

    @Test func laterStepsOverrideEarlierOnes() throws {
        #expect(try EmulatorScenario(parsing: ["no-swipe", "swipe-after=3"]).swipe == .after(.seconds(3)))
    }

    @Test(arguments: [
        ("swipe-later", EmulatorScenarioError.Problem.unknownStep),
        ("swipe-after", .missingValue),
        ("bad-swipe=1", .unexpectedValue),
        ("swipe-after=-1", .invalidValue(expected: "a whole number in 0…86400")),
        ("battery=101", .invalidValue(expected: "a whole number in 0…100")),
        ("reset-after=0", .invalidValue(expected: "a whole number in 1…65535")),
    ])
    func malformedStepsAreRejectedWithTheirProblem(step: String, problem: EmulatorScenarioError.Problem) {
        #expect(throws: EmulatorScenarioError(step: step, problem: problem)) { try EmulatorScenario(parsing: [step]) }
    }
}
