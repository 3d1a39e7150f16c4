@testable import CardReaderCore
import ReaderProtocol
import Testing

/// The reader's state machine alone: no clock, no link, no task. Each test drives one
/// transition (the ones `FaultMatrixTests` and the firmware tests exercise through a whole
/// reader included) and checks the mode it leaves and the actions it returns, in order.
/// Frames come from the reader's documentation (§3: STX, code, length, data, CRC), built
/// with `Frame`, whose encoding `FrameTests` checks against the CRC catalogue.
@Suite struct ReaderStateMachineTests {
    // MARK: - Connecting

    @Test func connectOpensFromDisconnectedOrLostAndWaitsWhileOneIsUnderWay() {
        var machine = Self.machine()
        let connectRequested = machine.connectRequested()
        #expect(connectRequested == .open)
        #expect(machine.connectionState == .connecting)
        let connectRequested2 = machine.connectRequested()
        #expect(connectRequested2 == .wait)
        _ = machine.linkOpened(StubLink(), for: .connect, reading: Self.noReading)
        let connectRequested3 = machine.connectRequested()
        #expect(connectRequested3 == .connected)
        _ = machine.linkDropped(Self.drop, generation: 1)
        #expect(machine.connectionState == .lost(Self.drop))
        let connectRequested4 = machine.connectRequested()
        #expect(connectRequested4 == .open)
    }

    @Test func aLinkThatOpensForTheConnectInProgressIsUsedAndResolvesTheWaiters() throws {
        var machine = Self.machine()
        _ = machine.connectRequested()
        let actionsOutcome = machine.linkOpened(StubLink(), for: .connect, reading: Self.noReading)
        let actions = try #require(actionsOutcome)
        #expect(Self.names(actions) == ["resolveConnectWaiters(success)", "resolveLinkWaiters(true)"])
        #expect(machine.connectionState == .connected)
        #expect(machine.openLink?.generation == 1)
    }

    @Test func aLinkThatOpensAfterADisconnectIsNotWanted() {
        var machine = Self.machine()
        _ = machine.connectRequested()
        #expect(Self.names(machine.disconnectRequested()) == [
            "stopOpeningLink", "stopReconnecting", "resolveConnectWaiters(not-connected)", "resolveLinkWaiters(false)",
            "endConnection(nil)",
        ])
        let linkOpened = machine.linkOpened(StubLink(), for: .connect, reading: Self.noReading)
        #expect(linkOpened == nil)
        let linkOpened2 = machine.linkOpened(StubLink(), for: .reconnect, reading: Self.noReading)
        #expect(linkOpened2 == nil)
        #expect(machine.connectionState == .disconnected)
    }

    /// The connects and the commands that waited for it fail with it.
    @Test func aFailedConnectLeavesTheReaderDisconnected() {
        var machine = Self.machine()
        _ = machine.connectRequested()
        #expect(machine.isConnecting)
        #expect(Self.names(machine.connectFailed(.notConnected)) == [
            "resolveConnectWaiters(not-connected)", "resolveLinkWaiters(false)",
        ])
        #expect(!machine.isConnecting)
        #expect(machine.connectionState == .disconnected)
    }

    @Test func disconnectingClosesTheLinkFailsTheCommandAndEndsTheConnection() {
        var machine = Self.connected()
        machine.commandSent(id: 7, code: .iccPowerOff, limit: .seconds(1))
        #expect(Self.names(machine.disconnectRequested()) == [
            "cancelTimer(answerOverdue(7))", "complete(7, not-connected)", "cancelTimer(incompleteFrameQuiet)",
            "resolveConnectWaiters(not-connected)", "resolveLinkWaiters(false)", "endConnection(nil)", "closeLink(by the host)",
        ])
        #expect(machine.connectionState == .disconnected)
        #expect(machine.disconnectRequested().isEmpty)
    }

    // MARK: - Drops and the reconnect policy

    @Test func aDropWithoutAPolicyLosesTheConnection() {
        var machine = Self.connected()
        machine.commandSent(id: 3, code: .iccPowerOff, limit: .seconds(1))
        #expect(Self.names(machine.linkDropped(Self.drop, generation: 1)) == [
            "cancelTimer(answerOverdue(3))", "complete(3, link-lost)", "cancelTimer(incompleteFrameQuiet)",
            "countLinkLoss", "resolveConnectWaiters(link-lost)", "resolveLinkWaiters(false)",
            "endConnection(remote-disconnected)", "closeLink(remote-disconnected)",
        ])
        #expect(machine.connectionState == .lost(Self.drop))
    }

    @Test func aDropOfAnEarlierLinkChangesNothing() {
        var machine = Self.connected()
        #expect(machine.linkDropped(Self.drop, generation: 0).isEmpty)
        #expect(machine.connectionState == .connected)
    }

    @Test func aDropWithAPolicyReconnectsAndAnnouncesEachAttempt() throws {
        var machine = Self.connected(reconnects: true)
        #expect(Self.names(machine.linkDropped(Self.drop, generation: 1)).contains("startReconnecting"))
        #expect(machine.connectionState == .reconnecting(attempt: 1))
        #expect(machine.reconnectingAfter == Self.drop)
        let announcedOutcome = machine.reconnectionAttempt(2)
        let announced = try #require(announcedOutcome)
        #expect(Self.names(announced) == ["broadcast(reconnecting (attempt 2, after \(Self.drop)))"])
        #expect(machine.connectionState == .reconnecting(attempt: 2))
        let backOutcome = machine.linkOpened(StubLink(), for: .reconnect, reading: Self.noReading)
        let back = try #require(backOutcome)
        #expect(Self.names(back) == [
            "countReconnect(reconnected)", "broadcast(reconnected)", "resolveConnectWaiters(success)",
            "resolveLinkWaiters(true)",
        ])
        #expect(machine.openLink?.generation == 2)
        let reconnectionAttempt = machine.reconnectionAttempt(3)
        #expect(reconnectionAttempt == nil)
    }

    @Test func aPolicyThatGivesUpLosesTheConnectionForTheFirstDrop() {
        var machine = Self.connected(reconnects: true)
        _ = machine.linkDropped(Self.drop, generation: 1)
        #expect(Self.names(machine.reconnectionGaveUp()) == [
            "countReconnect(gave-up)", "resolveConnectWaiters(link-lost)", "resolveLinkWaiters(false)",
            "endConnection(remote-disconnected)",
        ])
        #expect(machine.connectionState == .lost(Self.drop))
        #expect(machine.reconnectionGaveUp().isEmpty)
    }

    // MARK: - A command and its answer

    @Test func theAnswerEndsTheCommandAndOtherFramesAreEventsOrStale() {
        var machine = Self.connected()
        machine.commandSent(id: 5, code: .iccPowerOff, limit: .seconds(1))
        #expect(Self.names(Self.deliver(Frame(code: .getInfo, data: [0x00]), to: &machine)) == [
            "discarded(C0 01)", "cancelTimer(incompleteFrameQuiet)",
        ])
        // E0 03: battery low, 15 % (§6).
        #expect(Self.names(Self.deliver(Frame(main: 0xE0, sub: 0x03, data: [15]), to: &machine)) == [
            "recordBattery(15)", "broadcast(battery low (15%))", "cancelTimer(incompleteFrameQuiet)",
        ])
        #expect(Self.names(Self.deliver(Frame(code: .iccPowerOff, data: [0x00]), to: &machine)) == [
            "cancelTimer(answerOverdue(5))", "complete(5, success)", "cancelTimer(incompleteFrameQuiet)",
        ])
        #expect(Self.isIdle(machine))
    }

    @Test func aCommandWithoutAnAnswerTimesOutAndCancelGoesOut() {
        var machine = Self.connected()
        machine.commandSent(id: 9, code: .iccPowerOff, limit: .seconds(1))
        #expect(Self.names(machine.answerOverdue(9, now: .seconds(1))) == [
            "noAnswerInTime", "cancelTimer(answerOverdue(9))", "complete(9, reader-timed-out)", "sendCancel",
        ])
        #expect(machine.answerOverdue(9, now: .seconds(2)).isEmpty)
    }

    @Test func aCancelledCommandWaitsOnlyForTheReadersAnswerThenEndsCancelled() {
        var machine = Self.connected()
        machine.commandSent(id: 4, code: .iccPowerOff, limit: .seconds(30))
        #expect(Self.names(machine.cancelRequested(4, now: .seconds(2))) == [
            "cancelTimer(answerOverdue(4))", "schedule(answerOverdue(4), at: 3.5 seconds)", "cancelling", "sendCancel",
        ])
        #expect(machine.cancelRequested(4, now: .seconds(3)).isEmpty)
        // The reader answers the waiting command (status 02, cancelled) before CANCEL's own answer.
        #expect(Self.names(Self.deliver(Frame(code: .iccPowerOff, data: [0x02]), to: &machine)).prefix(2) == [
            "cancelTimer(answerOverdue(4))", "complete(4, cancelled)",
        ])
    }

    @Test func aCancelledCommandWithoutAnswerEndsCancelledWithoutASecondCancel() {
        var machine = Self.connected()
        machine.commandSent(id: 4, code: .iccPowerOff, limit: .seconds(30))
        _ = machine.cancelRequested(4, now: .zero)
        #expect(Self.names(machine.answerOverdue(4, now: .seconds(2))) == [
            "noAnswerInTime", "cancelTimer(answerOverdue(4))", "complete(4, cancelled)",
        ])
    }

    @Test func theNextCommandWaitsForEveryEarlierCancelsAnswer() {
        var machine = Self.connected()
        let mustSettleCancels = machine.mustSettleCancels(waiter: 1)
        #expect(!mustSettleCancels)
        let cancelSent = machine.cancelSent()
        #expect(cancelSent)
        let cancelSent2 = machine.cancelSent()
        #expect(cancelSent2)
        let mustSettleCancels2 = machine.mustSettleCancels(waiter: 2)
        #expect(mustSettleCancels2)
        #expect(Self.names(Self.deliver(Frame(code: .cancel, data: [0x00]), to: &machine)) == ["cancelTimer(incompleteFrameQuiet)"])
        #expect(Self.names(Self.deliver(Frame(code: .cancel, data: [0x00]), to: &machine)) == [
            "settleCancels(2, true)", "cancelTimer(incompleteFrameQuiet)",
        ])
        #expect(Self.isIdle(machine))
    }

    @Test func cancelsThatAreNeverAnsweredLetTheCommandFail() {
        var machine = Self.connected()
        _ = machine.cancelSent()
        _ = machine.mustSettleCancels(waiter: 6)
        #expect(Self.names(machine.cancelsOverdue(6)) == ["settleCancels(6, false)"])
        #expect(machine.cancelsOverdue(6).isEmpty)
    }

    @Test func noCancelIsCountedWithoutALink() {
        var machine = Self.machine()
        let cancelSent = machine.cancelSent()
        #expect(!cancelSent)
        #expect(machine.unansweredCancels == 0)
    }

    // MARK: - Incomplete frames

    @Test func anIncompleteFrameIsCutOffOnlyAfterItsTimeout() throws {
        var machine = Self.connected()
        machine.commandSent(id: 2, code: .iccPowerOff, limit: .seconds(1))
        let bytes = try Frame(code: .iccPowerOff, data: [0x00]).encoded()
        let started = machine.notificationArrived(Array(bytes.prefix(3)), generation: 1, now: .milliseconds(100))
        #expect(Self.names(started) == ["cancelTimer(incompleteFrameQuiet)", "schedule(incompleteFrameQuiet, at: 0.35 seconds)"])
        #expect(machine.cutOffStaleFrame(now: .milliseconds(300)).isEmpty)
        #expect(Self.names(machine.cutOffStaleFrame(now: .milliseconds(350))).first == "frameCutOff")
        // The command's answer after the damage still ends it.
        #expect(Self.names(machine.notificationArrived(bytes, generation: 1, now: .milliseconds(400))).contains("complete(2, success)"))
    }

    // MARK: - A firmware update

    @Test func enterFirmwareUpdatesSuccessTurnsTheLinkOverToTheTransfer() {
        var machine = Self.connected()
        let (channel, inputs) = Self.channel()
        let firmwareUpdateEntered = Self.enterFirmwareUpdate(&machine, channel, answering: 0x00)
        #expect(firmwareUpdateEntered)
        #expect(Self.names(machine.notificationArrived([0x43], generation: 1, now: .zero)) == ["deliver(bytes 1)"])
        _ = machine.transferEnded(accepted: false)
        // The transfer failed: frames again (E0 03, battery low, §6).
        #expect(Self.names(Self.deliver(Frame(main: 0xE0, sub: 0x03, data: [15]), to: &machine)).contains("broadcast(battery low (15%))"))
        inputs.finish()
    }

    @Test func aRefusedEnterLeavesTheLinkCarryingFrames() {
        var machine = Self.connected()
        let (channel, inputs) = Self.channel()
        // Status 05 (§5): the reader refuses ENTER FIRMWARE UPDATE.
        let firmwareUpdateEntered = Self.enterFirmwareUpdate(&machine, channel, answering: 0x05)
        #expect(!firmwareUpdateEntered)
        if case .commands = machine.mode {} else { Issue.record("the link should carry frames, not \(machine.mode)") }
        inputs.finish()
    }

    @Test func noUpdateStartsWithoutALinkCarryingFrames() {
        var machine = Self.machine()
        let (channel, inputs) = Self.channel()
        let firmwareUpdateEntering = machine.firmwareUpdateEntering(channel)
        #expect(!firmwareUpdateEntering)
        inputs.finish()
    }

    @Test func aDropMidTransferIsJudgedByTheUpdateNotThePolicy() {
        var machine = Self.transferring(reconnects: true)
        #expect(Self.names(machine.linkDropped(Self.drop, generation: 1)) == [
            "cancelTimer(incompleteFrameQuiet)", "deliver(linkLost remote-disconnected)", "closeLink(remote-disconnected)",
        ])
        #expect(machine.connectionState == .connected)
        // The image was accepted before the drop: the drop was the restart.
        #expect(machine.transferEnded(accepted: true).isEmpty)
        #expect(machine.connectionState == .reconnecting(attempt: 1))
        #expect(!machine.awaitsRestart)
    }

    @Test func aDropMidTransferThatFailedTheUpdateIsALinkLost() {
        var machine = Self.transferring(reconnects: false)
        _ = machine.linkDropped(Self.drop, generation: 1)
        #expect(Self.names(machine.transferEnded(accepted: false)) == [
            "countLinkLoss", "resolveConnectWaiters(link-lost)", "resolveLinkWaiters(false)",
            "endConnection(remote-disconnected)",
        ])
        #expect(machine.connectionState == .lost(Self.drop))
    }

    @Test func theHostClosingTheLinkMidTransferEndsItAndTheConnection() {
        var machine = Self.transferring(reconnects: true)
        #expect(Self.names(machine.disconnectRequested()) == [
            "cancelTimer(incompleteFrameQuiet)", "deliver(linkLost nil)", "resolveConnectWaiters(not-connected)",
            "resolveLinkWaiters(false)", "endConnection(nil)", "closeLink(by the host)",
        ])
        #expect(machine.connectionState == .disconnected)
    }

    @Test func afterTheImageTheReadersDropIsTheRestart() {
        var machine = Self.transferring(reconnects: true)
        _ = machine.transferEnded(accepted: true)
        #expect(machine.awaitsRestart)
        #expect(Self.names(machine.linkDropped(Self.drop, generation: 1)) == [
            "cancelTimer(incompleteFrameQuiet)", "deliver(linkLost remote-disconnected)", "closeLink(remote-disconnected)",
        ])
        #expect(machine.connectionState == .reconnecting(attempt: 1))
    }

    @Test func aReaderThatDoesNotDropAfterTheImageIsClosedByTheHost() {
        var machine = Self.transferring(reconnects: false)
        _ = machine.transferEnded(accepted: true)
        #expect(Self.names(machine.restartOverdue()) == [
            "restartNotSeen", "cancelTimer(incompleteFrameQuiet)", "deliver(linkLost nil)", "closeLink(by the host)",
        ])
        #expect(machine.connectionState == .reconnecting(attempt: 1))
        #expect(machine.restartOverdue().isEmpty)
    }

    @Test func theRestartedReaderIsConfirmedOrTriedAgain() throws {
        var machine = Self.restarting(reconnects: true)
        let restartAttempt = machine.restartAttempt(2)
        #expect(restartAttempt)
        #expect(machine.connectionState == .reconnecting(attempt: 2))
        let openedOutcome = machine.linkOpened(StubLink(), for: .restart, reading: Self.noReading)
        let opened = try #require(openedOutcome)
        #expect(opened.isEmpty)
        #expect(machine.connectionState == .connected)
        // GET INFO fails: the link closes and the update tries again; no reconnect policy.
        #expect(Self.names(machine.restartNotConfirmed()) == ["cancelTimer(incompleteFrameQuiet)", "closeLink(by the host)"])
        #expect(machine.connectionState == .reconnecting(attempt: 2))
        let linkOpened = machine.linkOpened(StubLink(), for: .restart, reading: Self.noReading)
        #expect(linkOpened != nil)
        // A drop while confirming is another attempt too.
        #expect(!Self.names(machine.linkDropped(Self.drop, generation: machine.generation)).contains("startReconnecting"))
        #expect(machine.connectionState == .reconnecting(attempt: 2))
        let linkOpened2 = machine.linkOpened(StubLink(), for: .restart, reading: Self.noReading)
        #expect(linkOpened2 != nil)
        #expect(Self.names(machine.restartConfirmed()) == [
            "broadcast(reconnected)", "resolveConnectWaiters(success)", "resolveLinkWaiters(true)",
        ])
        if case .commands = machine.mode {} else { Issue.record("the link should carry frames, not \(machine.mode)") }
    }

    @Test func aReaderThatDoesNotReturnLeavesTheReaderDisconnected() {
        var machine = Self.restarting(reconnects: true)
        let error = CardReaderError.firmwareUpdateFailed(.readerDidNotReturn(after: .seconds(60)))
        #expect(Self.names(machine.restartAbandoned(error)) == [
            "stopOpeningLink", "resolveConnectWaiters(firmware-reader-did-not-return)", "resolveLinkWaiters(false)",
        ])
        #expect(machine.connectionState == .disconnected)
        let restartAttempt = machine.restartAttempt(2)
        #expect(!restartAttempt)
    }

    @Test func aDisconnectDuringTheRestartStopsTheUpdatesAttempts() {
        var machine = Self.restarting(reconnects: true)
        _ = machine.disconnectRequested()
        let restartAttempt = machine.restartAttempt(2)
        #expect(!restartAttempt)
        let linkOpened = machine.linkOpened(StubLink(), for: .restart, reading: Self.noReading)
        #expect(linkOpened == nil)
    }
}

// MARK: - Set-up

extension ReaderStateMachineTests {
    static let drop = LinkError(.remoteDisconnected, "VPOS3356-0001 disconnected")
    /// No inbound task: the machine holds the one it is given and cancels nothing itself.
    static func noReading(_ generation: UInt64) -> Task<Void, Never> { Task {} }

    /// A machine as `CardReader` makes it: 250 ms for an incomplete frame, 1.5 s for a
    /// cancelled command (500 ms, §8, plus a 1 s link margin).
    static func machine(reconnects: Bool = false) -> ReaderStateMachine {
        ReaderStateMachine(
            reconnects: reconnects, incompleteFrameTimeout: .milliseconds(250), cancelledCommandLimit: .milliseconds(1500))
    }

    static func connected(reconnects: Bool = false) -> ReaderStateMachine {
        var machine = machine(reconnects: reconnects)
        _ = machine.connectRequested()
        _ = machine.linkOpened(StubLink(), for: .connect, reading: noReading)
        return machine
    }

    static func transferring(reconnects: Bool) -> ReaderStateMachine {
        var machine = connected(reconnects: reconnects)
        _ = enterFirmwareUpdate(&machine, channel().0, answering: 0x00)
        return machine
    }

    /// ENTER FIRMWARE UPDATE, sent and answered with `status`: whether the link now carries
    /// the transfer. Records an issue if the machine would not send it.
    static func enterFirmwareUpdate(
        _ machine: inout ReaderStateMachine, _ channel: ReaderStateMachine.UpdateChannel, answering status: UInt8
    ) -> Bool {
        let entering = machine.firmwareUpdateEntering(channel)
        #expect(entering, "ENTER FIRMWARE UPDATE needs a link carrying frames")
        machine.commandSent(id: 1, code: .enterFirmwareUpdate, limit: .seconds(1))
        _ = deliver(Frame(code: .enterFirmwareUpdate, data: [status]), to: &machine)
        return machine.firmwareUpdateEntered()
    }

    static func restarting(reconnects: Bool) -> ReaderStateMachine {
        var machine = transferring(reconnects: reconnects)
        _ = machine.transferEnded(accepted: true)
        _ = machine.linkDropped(drop, generation: 1)
        return machine
    }

    static func channel() -> (ReaderStateMachine.UpdateChannel, AsyncStream<FirmwareUpdateInput>.Continuation) {
        let (_, continuation) = AsyncStream.makeStream(of: FirmwareUpdateInput.self)
        return (ReaderStateMachine.UpdateChannel(inputs: continuation), continuation)
    }

    /// The frame, encoded, as one notification of the first link.
    static func deliver(_ frame: Frame, to machine: inout ReaderStateMachine) -> [ReaderAction] {
        guard let bytes = try? frame.encoded() else {
            Issue.record("\(frame) does not encode")
            return []
        }
        return machine.notificationArrived(bytes, generation: machine.generation, now: .zero)
    }

    static func isIdle(_ machine: ReaderStateMachine) -> Bool {
        if case .idle = machine.exchange { return true }
        return false
    }

    /// Each action in words, so a test can compare them in order.
    static func names(_ actions: [ReaderAction]) -> [String] {
        actions.map { action in
            switch action {
            case .complete(let id, .success): "complete(\(id), success)"
            case .complete(let id, .failure(let error)): "complete(\(id), \(error.identifier))"
            case .settleCancels(let id, let settled): "settleCancels(\(id), \(settled))"
            case .sendCancel: "sendCancel"
            case .broadcast(let event): "broadcast(\(event))"
            case .recordBattery(let percent): "recordBattery(\(percent))"
            case .deliver(.bytes(let bytes), _): "deliver(bytes \(bytes.count))"
            case .deliver(.linkLost(let reason), _): "deliver(linkLost \(reason?.code.rawValue ?? "nil"))"
            case .deliver(let input, _): "deliver(\(input))"
            case .closeLink(_, let reason): "closeLink(\(reason?.code.rawValue ?? "by the host"))"
            case .stopOpeningLink: "stopOpeningLink"
            case .stopReconnecting: "stopReconnecting"
            case .schedule(let timed, let deadline): "schedule(\(timed), at: \(deadline))"
            case .cancelTimer(let timed): "cancelTimer(\(timed))"
            case .startReconnecting: "startReconnecting"
            case .endConnection(let reason): "endConnection(\(reason?.code.rawValue ?? "nil"))"
            case .resolveLinkWaiters(let back): "resolveLinkWaiters(\(back))"
            case .resolveConnectWaiters(.success): "resolveConnectWaiters(success)"
            case .resolveConnectWaiters(.failure(let error)): "resolveConnectWaiters(\(error.identifier))"
            case .countLinkLoss: "countLinkLoss"
            case .countReconnect(let outcome): "countReconnect(\(outcome))"
            case .log(.lineDamage): "lineDamage"
            case .log(.frameCutOff): "frameCutOff"
            case .log(.discarded(let code)): "discarded(\(code))"
            case .log(.malformedEvent): "malformedEvent"
            case .log(.noAnswerInTime): "noAnswerInTime"
            case .log(.cancelling): "cancelling"
            case .log(.restartNotSeen): "restartNotSeen"
            }
        }
    }
}

/// A link that carries nothing: the machine only holds it.
private struct StubLink: ReaderLink {
    var maximumWriteLength: Int { 20 }
    var security: LinkSecurity { .encrypted }
    var inbound: AsyncStream<LinkInbound> { AsyncStream { $0.finish() } }
    func write(_ packet: [UInt8]) async throws(LinkError) {}
    func close() async {}
}
