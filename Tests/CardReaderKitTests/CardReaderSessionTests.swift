import BLETransport
import Testing
import CardReaderKit
import CardReaderKitTesting
import ReaderProtocol

/// The session rules of CardReader, against a reader the test plays frame by frame.
/// Deadlines are the documented answer times (§8) plus the 1 s link margin, driven by a
/// ManualClock: GET INFO 0.5 s + 1 s.
@Suite struct CardReaderSessionTests {
    let scripted = ScriptedReader()
    let clock = ManualClock()

    func connectedReader() async throws -> CardReader {
        let reader = CardReader(connector: scripted.connector, clock: clock)
        try await reader.connect()
        return reader
    }

    static let info = ReaderInfo(model: "VPOS3356", serialNumber: "A1", firmwareVersion: "2.4.1", batteryPercent: 90)

    @Test func infoRoundTripWritesPacketsOfTheLinkSize() async throws {
        let reader = try await connectedReader()
        async let answer = reader.info()
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(Self.info))
        #expect(try await answer == Self.info)
        #expect(await scripted.packetSizes.allSatisfy { $0 <= 20 })
    }

    @Test func eventsBetweenACommandAndItsAnswerGoToTheEventStream() async throws {
        let reader = try await connectedReader()
        var events = await reader.events().makeAsyncIterator()
        async let answer = reader.cardSlotState()
        #expect(try await scripted.nextCommand() == .iccStatus)
        try await scripted.send(ReaderEvent.cardInserted.frame)
        try await scripted.send(ReaderEvent.batteryLow(percent: 9).frame)
        try await scripted.answer(.iccStatus, .success, .iccStatus(.cardPresent))
        #expect(try await answer == .cardPresent)
        #expect(await events.next() == .cardInserted)
        #expect(await events.next() == .batteryLow(percent: 9))
    }

    /// The reader answers GET INFO under another command's code (ICC STATUS): the answer is
    /// not taken for GET INFO's, and the timeout that follows names what came instead, so a
    /// support engineer reads "it answered under the code of ICC STATUS", not silence.
    @Test func anAnswerUnderAnotherCodeIsNamedByTheTimeout() async throws {
        let reader = try await connectedReader()
        let first = Task { try await reader.info() }
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.iccStatus, .success, .iccStatus(.noCard))
        try await scripted.waitUntilHostHasHandledEverything()
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(1500))
        let expected = CardReaderError.readerTimedOut(.getInfo, after: .milliseconds(1500), answeredInstead: .iccStatus)
        await #expect(throws: expected) { try await first.value }
        #expect(expected.description.contains("answered under the code of ICC STATUS (C2 04)"))
        #expect(expected.fix?.contains("update the reader's firmware") == true)
    }

    /// The reader answers GET INFO late, after the deadline: the host has sent CANCEL, so
    /// it discards everything until CANCEL's answer, and the next GET INFO gets its own answer.
    @Test func aLateAnswerIsNeverTakenForTheNextCommands() async throws {
        let reader = try await connectedReader()
        let first = Task { try await reader.info() }
        #expect(try await scripted.nextCommand() == .getInfo)
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(1500))
        await #expect(throws: CardReaderError.readerTimedOut(.getInfo, after: .milliseconds(1500))) {
            try await first.value
        }
        #expect(try await scripted.nextCommand() == .cancel)

        let second = Task { try await reader.info() }
        let late = ReaderInfo(model: "LATE")
        try await scripted.answer(.getInfo, .success, .info(late))  // the stale answer
        #expect(await scripted.pendingCommands.isEmpty)             // second not sent yet
        try await scripted.answer(.cancel, .success)
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(Self.info))
        #expect(try await second.value == Self.info)
    }

    @Test func cancellingTheCallerSendsCancelAndEndsWithCancelled() async throws {
        let reader = try await connectedReader()
        let swipe = Task { try await reader.readMagneticStripe(timeout: .seconds(30)) }
        #expect(try await scripted.nextCommand() == .readMagneticStripe(timeoutSeconds: 30))
        swipe.cancel()
        #expect(try await scripted.nextCommand() == .cancel)
        // §3: the waiting command is answered 02 first, then CANCEL 00.
        try await scripted.answer(.readMagneticStripe, .cancelled)
        try await scripted.answer(.cancel, .success)
        await #expect(throws: CardReaderError.cancelled) { try await swipe.value }

        async let next = reader.cardSlotState()
        #expect(try await scripted.nextCommand() == .iccStatus)
        try await scripted.answer(.iccStatus, .success, .iccStatus(.noCard))
        #expect(try await next == .noCard)
    }

    @Test func aSecondCallerWaitsForTheFirst() async throws {
        let reader = try await connectedReader()
        let first = Task { try await reader.cardSlotState() }
        #expect(try await scripted.nextCommand() == .iccStatus)
        let second = Task { try await reader.info() }
        // The second command must not reach the reader while the first waits.
        await #expect(throws: ScriptedReader.Timeout.self) { try await scripted.nextCommand(within: .milliseconds(200)) }
        try await scripted.answer(.iccStatus, .success, .iccStatus(.noCard))
        #expect(try await first.value == .noCard)
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(Self.info))
        #expect(try await second.value == Self.info)
    }

    @Test func aDroppedLinkEndsTheWaitingCommandAtOnce() async throws {
        let reader = try await connectedReader()
        var events = await reader.events().makeAsyncIterator()
        let swipe = Task { try await reader.readMagneticStripe() }
        _ = try await scripted.nextCommand()
        let reason = LinkError(.remoteDisconnected, "the reader went away")
        await scripted.drop(reason)
        await #expect(throws: CardReaderError.linkLost(reason)) { try await swipe.value }
        #expect(await events.next() == .disconnected(reason))
        #expect(await reader.state == .lost(reason))
        await #expect(throws: CardReaderError.notConnected) { try await reader.info() }
    }

    @Test func everyFailureStatusSurfacesAsItsTypedError() async throws {
        let reader = try await connectedReader()
        let cases: [(ReaderStatus, CardReaderError)] = [
            // 02 unasked (this host sent no CANCEL) is the reader's refusal, not a cancellation.
            (.cardholderTimeout, .cardholderTimeout(.readMagneticStripe)), (.cancelled, .readerRejected(.readMagneticStripe, .cancelled)),
            (.unreadableStripe, .badSwipe), (.noCard, .noCard), (.cardRemoved, .cardRemoved),
            (.unknownCommand, .readerRejected(.readMagneticStripe, .unknownCommand)),
            (.invalidParameter, .readerRejected(.readMagneticStripe, .invalidParameter)),
            (.busy, .readerBusy(.readMagneticStripe)), (.cardNotResponding, .cardNotResponding),
            (.cardNotPowered, .cardNotPowered), (.batteryTooLow, .batteryTooLow(.readMagneticStripe)),
            (.reserved(0x3C), .readerRejected(.readMagneticStripe, .reserved(0x3C))),
        ]
        for (status, expected) in cases {
            let swipe = Task { try await reader.readMagneticStripe(timeout: .seconds(5)) }
            _ = try await scripted.nextCommand()
            try await scripted.answer(.readMagneticStripe, status)
            await #expect(throws: expected) { try await swipe.value }
            #expect(expected.readerStatus == status)
        }
    }

    @Test func connectGivesUpAtItsDeadline() async throws {
        let reader = CardReader(connector: UnreachableConnector(), clock: clock)
        let connecting = Task { try await reader.connect() }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(5))
        await #expect(throws: CardReaderError.connectionTimedOut(reader: "unreachable reader", after: .seconds(5))) {
            try await connecting.value
        }
        #expect(await reader.state == .disconnected)
    }

    @Test func aReaderThatAnswersNothingIsReportedAfterOneBoundedWait() async throws {
        let reader = try await connectedReader()
        let first = Task { try await reader.info() }
        _ = try await scripted.nextCommand()
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(1500))
        _ = try? await first.value
        #expect(try await scripted.nextCommand() == .cancel)
        let second = Task { try await reader.info() }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(1500))
        await #expect(throws: CardReaderError.readerNotResponding) { try await second.value }
    }

    @Test func extendedAPDUsAreRefusedBeforeReachingTheReader() async throws {
        let reader = try await connectedReader()
        let apdu = try CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, expectedLength: 1000)
        await #expect(
            throws: CardReaderError.invalidRequest(
                "the reader carries short APDUs only (at most 255 data bytes, Le at most 256)")
        ) { try await reader.transmit(apdu) }
        #expect(await scripted.pendingCommands.isEmpty)
    }

    /// T=0 as ISO/IEC 7816-3 describes it: 61xx → GET RESPONSE with Le xx; 6Cxx → same command, Le xx.
    @Test func getResponseChainsAndWrongLengthResends() async throws {
        let reader = try await connectedReader()
        let select = try CommandAPDU.select(name: Array("2PAY.SYS.DDF01".utf8))
        async let response = reader.transmit(select)
        _ = try await scripted.nextCommand()
        try await scripted.answer(.iccAPDU, .success, .apdu(ResponseAPDU(statusWord: StatusWord(0x6104))))
        guard case .iccAPDU(let getResponse) = try await scripted.nextCommand() else { throw ScriptedReader.Timeout(what: "GET RESPONSE") }
        #expect([getResponse.cla, getResponse.ins, getResponse.p1, getResponse.p2] == [0x00, 0xC0, 0x00, 0x00])
        #expect(getResponse.expectedLength == 4)
        try await scripted.answer(.iccAPDU, .success, .apdu(ResponseAPDU(data: SensitiveBytes([1, 2]), statusWord: StatusWord(0x6102))))
        _ = try await scripted.nextCommand()
        try await scripted.answer(.iccAPDU, .success, .apdu(ResponseAPDU(data: SensitiveBytes([3, 4]), statusWord: .success)))
        let joined = try await response
        #expect(joined.data.revealed() == [1, 2, 3, 4])
        #expect(joined.statusWord == .success)

        let readRecord = try CommandAPDU.readRecord(1, shortFileIdentifier: 1)
        async let record = reader.transmit(readRecord)
        _ = try await scripted.nextCommand()
        try await scripted.answer(.iccAPDU, .success, .apdu(ResponseAPDU(statusWord: StatusWord(0x6C03))))
        guard case .iccAPDU(let resent) = try await scripted.nextCommand() else { throw ScriptedReader.Timeout(what: "resend") }
        #expect(resent.ins == 0xB2 && resent.expectedLength == 3)
        try await scripted.answer(.iccAPDU, .success, .apdu(ResponseAPDU(data: SensitiveBytes([7, 8, 9]), statusWord: .success)))
        #expect(try await record.data.revealed() == [7, 8, 9])
    }

    @Test func rawExchangesReturnTheCardsFirstAnswer() async throws {
        let reader = try await connectedReader()
        async let response = reader.transmit(try CommandAPDU.readRecord(1, shortFileIdentifier: 1), options: .raw)
        _ = try await scripted.nextCommand()
        try await scripted.answer(.iccAPDU, .success, .apdu(ResponseAPDU(statusWord: StatusWord(0x6C03))))
        #expect(try await response.statusWord == StatusWord(0x6C03))
    }
}
