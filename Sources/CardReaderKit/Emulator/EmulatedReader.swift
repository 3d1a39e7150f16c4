import BLETransport
import Logging

/// The reader's side of the protocol, emulated: a VPOS3356-class reader with an optional
/// card, behaving as the reader's documentation says (commands §3, GET INFO §4, status
/// codes §5, events §6, timing §8), including its failures, plus the faults a
/// ``EmulatorScenario`` injects.
///
/// It is independent of any transport: a host connects (``connect(maximumNotificationLength:)``),
/// hands it every packet written to RX (``receive(_:connection:)``), and forwards what the
/// returned stream yields as TX notifications; ``EmulatedReaderConnector`` does that in
/// process. Frames are reassembled from any chunking; frames with a bad CRC or LEN are
/// dropped silently, as the real reader does.
///
/// Time comes only from the injected clock, so under ``ManualClock`` every wait (swipe,
/// card insertion, idle link, scheduled reset) happens exactly when the test advances time.
///
/// Decisions where the documentation is silent are listed in `Fixtures/cards/README.md`.
public actor EmulatedReader {
    /// One host connection: its id for ``receive(_:connection:)`` and what the reader sends.
    public struct Connection: Sendable {
        /// Identifies the connection to ``receive(_:connection:)`` and ``disconnect(connection:)``.
        public let id: Int
        /// TX notifications, in order; then `.dropped` if the reader drops the link. It
        /// finishes when the connection ends either way.
        public let notifications: AsyncStream<LinkInbound>
    }

    /// The card the cardholder has, if any.
    public nonisolated let card: EmulatedCard?
    /// The cardholder's actions and the faults injected.
    public nonisolated let scenario: EmulatorScenario
    /// What GET INFO reports, the idle timeout and the battery thresholds.
    public nonisolated let configuration: EmulatedReaderConfiguration

    private enum TimedAction: Sendable, Equatable {
        case idleTimeout
        case restartComplete
        case lateAnswers
        case swipe(command: Int)
        case commandTimeout(command: Int)
        case insertCard
        case removeCard
        case reset
    }

    /// A command waiting for the cardholder: READ MAGNETIC STRIPE or ICC POWER ON.
    private struct WaitingCommand {
        var number: Int
        var code: CommandCode
    }

    private enum Slot {
        case empty
        case present
        case powered(T0CardChannel)
    }

    private struct ActiveConnection {
        var id: Int
        var continuation: AsyncStream<LinkInbound>.Continuation
        var maximumNotificationLength: Int
    }

    private let clock: ElapsedClock
    private let logger: Logger
    private var connection: ActiveConnection?
    private var connectionCount = 0
    private var decoder = FrameDecoder()
    private var emitter: NotificationEmitter
    private var timeline = Timeline<TimedAction>()
    private var battery: UInt8
    private var slot: Slot
    private var waiting: WaitingCommand?
    private var commandCount = 0
    private var apduCount = 0
    private var responseCount = 0
    private var writeCount = 0
    /// How many TX notifications the reader has sent over its life (all connections): a
    /// test that has seen the host take this many knows nothing is on its way.
    public private(set) var notificationsSent = 0
    /// Responses interrupted by a restart (`restart-mid-frame`), sent whole once it is over.
    private var resentAfterRestart: [[UInt8]] = []
    /// How late the command being handled is answered (`late-answer`), if it is.
    private var answerDelay: Duration?
    /// Answers held back by `late-answer`, in order.
    private var lateAnswers: [[UInt8]] = []

    /// A reader holding `card` (nil: the cardholder has none) under `scenario`, reading
    /// time from `clock`. Logs carry command codes and statuses only, never card data.
    public init(
        card: EmulatedCard? = nil, scenario: EmulatorScenario = EmulatorScenario(),
        configuration: EmulatedReaderConfiguration = EmulatedReaderConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "CardReaderKit.EmulatedReader")
    ) {
        self.card = card
        self.scenario = scenario
        self.configuration = configuration
        self.clock = ElapsedClock(clock)
        self.logger = logger
        emitter = NotificationEmitter(scenario: scenario)
        battery = scenario.batteryPercent ?? configuration.info.batteryPercent ?? 100
        let inSlot = scenario.cardInsertedAtStart || (scenario.removeAfter != nil && scenario.insertAfter == nil)
        slot = card != nil && inSlot ? .present : .empty
    }

    // MARK: - Host side

    /// A host connects, with notifications of at most `maximumNotificationLength` bytes
    /// (ATT MTU − 3: 20…244). One central at a time: a second is refused.
    public func connect(maximumNotificationLength: Int) throws(LinkError) -> Connection {
        guard connection == nil else {
            throw LinkError(.connectionRefused, "the emulated reader already has a central connected")
        }
        guard (20...244).contains(maximumNotificationLength) else {
            throw LinkError(.invalidMTU, "the ATT MTU must be 23…247")
        }
        connectionCount += 1
        let (stream, continuation) = AsyncStream.makeStream(of: LinkInbound.self)
        connection = ActiveConnection(
            id: connectionCount, continuation: continuation, maximumNotificationLength: maximumNotificationLength)
        decoder.reset()
        let now = clock.elapsed()
        if connectionCount == 1 {
            if let delay = scenario.insertAfter { schedule(.insertCard, at: now + delay) }
            if let delay = scenario.removeAfter { schedule(.removeCard, at: now + delay) }
            if let seconds = scenario.resetAfter { schedule(.reset, at: now + .seconds(Int(seconds))) }
        }
        if battery < configuration.batteryWarningPercent { send(event: .batteryLow(percent: battery)) }
        if let resetAt = timeline.deadline(of: .reset) {
            let left = (resetAt - now).components
            let seconds = left.seconds + (left.attoseconds > 0 ? 1 : 0)
            send(event: .resetScheduled(secondsUntilReset: UInt16(clamping: seconds)))
        }
        refreshIdleTimer()
        logger.debug("host connected", metadata: ["connection": "\(connectionCount)"])
        return Connection(id: connectionCount, notifications: stream)
    }

    /// Waits as long as the scenario makes connections wait (`slow-connect`); throws when
    /// the waiting task is cancelled.
    public func waitToAcceptConnection() async throws {
        guard let delay = scenario.connectDelay else { return }
        try await clock.sleep(clock.elapsed() + delay)
    }

    /// One packet the host wrote to RX. Fails once that connection has ended.
    public func receive(_ packet: [UInt8], connection id: Int) throws(LinkError) {
        guard connection?.id == id else {
            throw LinkError(.notConnected, "the emulated reader's link is closed")
        }
        writeCount += 1
        if scenario.refuseWrite?.contains(writeCount) == true {
            throw LinkError(.writeRefused, "the emulated reader refused the write (scenario)")
        }
        var frames: [Frame] = []
        decoder.decode(packet) { event in
            switch event {
            case .frame(let frame, _): frames.append(frame)
            case .damage(let damage): logger.debug("dropped damaged input", metadata: ["reason": "\(damage.reason.identifier)"])
            }
        }
        for frame in frames where connection?.id == id {
            handle(frame)
        }
    }

    /// The host disconnects. A waiting command is abandoned unanswered; a powered card is
    /// powered off. Idempotent.
    public func disconnect(connection id: Int) {
        guard connection?.id == id else { return }
        endConnection(dropping: nil)
    }

    // MARK: - Commands

    private func handle(_ frame: Frame) {
        commandCount += 1
        let code = frame.code
        if scenario.silent?.contains(commandCount) == true {
            logger.debug("scenario: command swallowed", metadata: ["command": "\(code)"])
            return
        }
        let command = Result { () throws(MessageDecodingError) in try ReaderCommand(frame: frame) }
        if scenario.lateAnswer?.contains(commandCount) == true, case .success(let late) = command {
            answerDelay = Self.answerTime(of: late) + .milliseconds(1500)
        }
        defer {
            answerDelay = nil
            refreshIdleTimer()
        }
        if code != .cancel, waiting != nil || scenario.busy?.contains(commandCount) == true {
            return answer(code, .busy)
        }
        if let status = scenario.rejections[code] {
            return answer(code, status)
        }
        switch command {
        case .success(let command): execute(command, frame: frame)
        case .failure(.unknownCommand): answer(code, .unknownCommand)
        case .failure: answer(code, .invalidParameter)
        }
    }

    /// A command's documented answer time (§8).
    private static func answerTime(of command: ReaderCommand) -> Duration {
        switch command {
        case .readMagneticStripe(let seconds):
            .seconds(Int(seconds == 0 ? ReaderCommand.defaultSwipeTimeoutSeconds : seconds) + 1)
        case .iccPowerOn(let seconds): .seconds(Int(seconds) + 2)
        case .iccAPDU: .seconds(5)
        default: .milliseconds(500)
        }
    }

    private func execute(_ command: ReaderCommand, frame: Frame) {
        let code = command.code
        switch command {
        case .getInfo:
            var info = configuration.info
            info.batteryPercent = battery
            answer(code, .success, .info(info))
        case .cancel:
            // Answers are sent in order: a late one goes out before CANCEL's.
            sendLateAnswers()
            if let cancelled = takeWaitingCommand() { answer(cancelled.code, .cancelled) }
            answer(code, .success)
        case .enterFirmwareUpdate(let size):
            // YModem is not emulated: a valid size is answered "unknown command" (this
            // firmware cannot update); size 0 is an invalid parameter on any firmware.
            answer(code, size == 0 ? .invalidParameter : .unknownCommand)
        case .readMagneticStripe(let seconds):
            guard battery >= configuration.batteryRefusalPercent else { return answer(code, .batteryTooLow) }
            let timeout = Duration.seconds(Int(seconds == 0 ? ReaderCommand.defaultSwipeTimeoutSeconds : seconds))
            guard card != nil, case .after(let delay) = scenario.swipe, delay < timeout else {
                return wait(code, timeout: timeout)
            }
            guard delay > .zero else { return answer(code, swipeResult()) }
            wait(code, timeout: timeout)
            schedule(.swipe(command: commandCount), at: clock.elapsed() + delay)
        case .iccPowerOn(let seconds):
            guard battery >= configuration.batteryRefusalPercent else { return answer(code, .batteryTooLow) }
            if case .empty = slot {
                if seconds == 0 { answer(code, .noCard) } else { wait(code, timeout: .seconds(Int(seconds))) }
            } else {
                powerOn(code)
            }
        case .iccAPDU(let apdu):
            // Only short APDUs, encoded as such (documentation §3; protocol notes).
            guard !apdu.needsExtendedLength, apdu.encoded().count == frame.data.count else {
                return answer(code, .invalidParameter)
            }
            switch slot {
            case .empty: answer(code, .noCard)
            case .present: answer(code, .cardNotPowered)
            case .powered(var channel):
                apduCount += 1
                if scenario.removeDuringAPDU == apduCount {
                    removeCard()
                    return answer(code, .cardRemoved)
                }
                if let statusWord = scenario.cardStatusWords[apdu.ins] {
                    return answer(code, .success, .apdu(ResponseAPDU(statusWord: statusWord)))
                }
                let response = channel.transmit(apdu)
                slot = .powered(channel)
                answer(code, .success, .apdu(response))
            }
        case .iccPowerOff:
            switch slot {
            case .empty: answer(code, .noCard)
            case .present: answer(code, .cardNotPowered)
            case .powered:
                slot = .present
                answer(code, .success)
            }
        case .iccStatus:
            answer(code, .success, .iccStatus(slotState))
        }
    }

    private var slotState: ICCSlotState {
        switch slot {
        case .empty: .noCard
        case .present: .cardPresent
        case .powered: .cardPowered
        }
    }

    private func swipeResult() -> (ReaderStatus, ResponseBody) {
        guard !scenario.badSwipe, let stripe = card?.magneticStripe, !stripe.isEmpty else { return (.unreadableStripe, .empty) }
        return (.success, .magneticStripe(stripe))
    }

    private func answer(_ code: CommandCode, _ result: (ReaderStatus, ResponseBody)) {
        answer(code, result.0, result.1)
    }

    private func powerOn(_ code: CommandCode) {
        guard let chip = card?.chip, let atr = try? AnswerToReset(bytes: chip.answerToReset) else {
            return answer(code, .cardNotResponding)
        }
        slot = .powered(T0CardChannel(chip: chip))
        answer(code, .success, .answerToReset(atr))
    }

    private func wait(_ code: CommandCode, timeout: Duration) {
        waiting = WaitingCommand(number: commandCount, code: code)
        schedule(.commandTimeout(command: commandCount), at: clock.elapsed() + timeout)
    }

    /// Ends the wait of the waiting command, if any, and returns it (to be answered or abandoned).
    private func takeWaitingCommand() -> WaitingCommand? {
        guard let command = waiting else { return nil }
        waiting = nil
        timeline.cancel(.swipe(command: command.number))
        timeline.cancel(.commandTimeout(command: command.number))
        return command
    }

    // MARK: - Timed actions

    private func perform(_ action: TimedAction) {
        switch action {
        case .idleTimeout:
            endConnection(dropping: LinkError(.idleTimeout, "no command for \(configuration.idleTimeout)"))
        case .restartComplete:
            for bytes in resentAfterRestart { sendFrame(bytes) }
            resentAfterRestart.removeAll()
        case .lateAnswers:
            sendLateAnswers()
        case .swipe(let number):
            guard waiting?.number == number, let command = takeWaitingCommand() else { return }
            answer(command.code, swipeResult())
        case .commandTimeout(let number):
            guard waiting?.number == number, let command = takeWaitingCommand() else { return }
            answer(command.code, .cardholderTimeout)
        case .insertCard:
            insertCard()
        case .removeCard:
            removeCard()
        case .reset:
            logger.debug("scheduled reset")
            endConnection(dropping: LinkError(.readerReset, "the reader reset itself (scheduled reset)"))
        }
        refreshIdleTimer()
    }

    private func insertCard() {
        guard card != nil, case .empty = slot else { return }
        slot = .present
        send(event: .cardInserted)
        if let command = waiting, command.code == .iccPowerOn {
            _ = takeWaitingCommand()
            powerOn(command.code)
        }
    }

    private func removeCard() {
        if case .empty = slot { return }
        slot = .empty
        send(event: .cardRemoved)
    }

    private func refreshIdleTimer() {
        timeline.cancel(.idleTimeout)
        guard connection != nil, waiting == nil else { return }
        schedule(.idleTimeout, at: clock.elapsed() + configuration.idleTimeout)
    }

    private func schedule(_ action: TimedAction, at deadline: Duration) {
        guard let wakeUp = timeline.schedule(action, at: deadline) else { return }
        clock.startTimer(until: wakeUp) { [weak self] in await self?.timerWoke(from: $0) }
    }

    /// A timer woke: performs every action due, and says when it wakes next, if it does.
    private func timerWoke(from wakeUp: Duration) -> Duration? {
        let now = clock.elapsed()
        while let action = timeline.popDue(at: now) {
            perform(action)
        }
        return timeline.sleeperWoke(from: wakeUp)
    }

    // MARK: - Sending

    private func endConnection(dropping reason: LinkError?) {
        _ = takeWaitingCommand()
        if case .powered = slot { slot = .present }
        timeline.cancel(.idleTimeout)
        guard let ended = connection else { return }
        connection = nil
        if let reason {
            logger.debug("dropping the link", metadata: ["reason": "\(reason.code)"])
            ended.continuation.yield(.dropped(reason))
        }
        ended.continuation.finish()
    }

    private func answer(_ code: CommandCode, _ status: ReaderStatus, _ body: ResponseBody = .empty) {
        guard connection != nil else { return }
        if code != .cancel, scenario.dropBeforeAnswer?.contains(commandCount) == true {
            endConnection(
                dropping: LinkError(.emulatorDropped, "the emulated reader dropped the link before answering"))
            return
        }
        var frame = ReaderResponse(code: code, status: status, body: body).frame
        if scenario.malformedAnswer?.contains(commandCount) == true {
            frame.data = [ReaderStatus.success.rawValue, 0xFF]
        }
        if scenario.wrongCode?.contains(commandCount) == true {
            frame.code = code == .iccStatus ? .getInfo : .iccStatus
        }
        guard let bytes = try? frame.encoded() else {
            logger.error("response too long to frame", metadata: ["command": "\(code)"])
            return
        }
        responseCount += 1
        logger.debug("answering", metadata: ["command": "\(code)", "status": "\(status.identifier)"])
        if let delay = answerDelay {
            lateAnswers.append(bytes)
            schedule(.lateAnswers, at: clock.elapsed() + delay)
            return
        }
        guard scenario.dropMidFrame != responseCount else {
            sendFrame(Array(bytes.prefix(max(1, bytes.count / 2))))
            endConnection(
                dropping: LinkError(.emulatorDropped, "the emulated reader dropped the link mid-frame"))
            return
        }
        guard scenario.restartMidFrame != responseCount else {
            sendFrame(Self.interruptedStart(of: bytes))
            resentAfterRestart.append(bytes)
            schedule(.restartComplete, at: clock.elapsed() + Self.restartTime)
            return
        }
        sendFrame(bytes)
    }

    private func sendLateAnswers() {
        timeline.cancel(.lateAnswers)
        for bytes in lateAnswers { sendFrame(bytes) }
        lateAnswers.removeAll()
    }

    /// How long the reader's MCU takes to restart (`restart-mid-frame`).
    static let restartTime = Duration.milliseconds(80)

    /// What a restart leaves of a response the reader had started: STX, MAIN, SUB, a LEN
    /// 64 bytes longer than the response sent after the restart (the interrupted one was
    /// being built with more), and 3 bytes.
    static func interruptedStart(of frame: [UInt8]) -> [UInt8] {
        let length = (Int(frame[3]) << 8 | Int(frame[4])) + 64
        return Array(frame.prefix(3)) + [UInt8(length >> 8), UInt8(length & 0xFF)] + frame.dropFirst(5).prefix(3)
    }

    private func send(event: ReaderEvent) {
        guard let bytes = try? event.frame.encoded() else { return }
        sendFrame(bytes)
    }

    private func sendFrame(_ bytes: [UInt8]) {
        guard let connection else { return }
        for packet in emitter.notifications(forFrame: bytes, maximumLength: connection.maximumNotificationLength) {
            connection.continuation.yield(.notification(packet))
            notificationsSent += 1
        }
    }
}
