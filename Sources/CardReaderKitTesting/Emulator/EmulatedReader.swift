import CardReaderCore
import DisabledLogging
import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// The reader's side of the protocol, emulated: a VPOS3356-class reader with an optional
/// card, behaving as the reader's documentation says (commands §3, GET INFO §4, status
/// codes §5, events §6, timing §8), including its failures, plus the faults a
/// ``EmulatorScenario`` injects.
///
/// It is independent of any transport: a host connects (``connect(maximumNotificationLength:encrypted:subscribed:)``),
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
        /// finishes when the connection ends either way. Whatever made the reader drop it (its
        /// idle rule, a scheduled reset, a firmware restart, a scenario's fault), the drop
        /// says `remote-disconnected`, as BlueZ does; ``EmulatedReader/lastDropCause`` says why.
        public let notifications: AsyncStream<LinkInbound>
        /// The Battery service's level (`2A19`): the level at connection, then each change;
        /// it finishes when the connection ends.
        public let batteryLevels: AsyncStream<UInt8>
    }

    /// The card the cardholder has, if any.
    public nonisolated let card: EmulatedCard?
    /// The cardholder's actions and the faults injected.
    public nonisolated let scenario: EmulatorScenario
    /// What GET INFO reports, the idle timeout and the battery thresholds.
    public nonisolated let configuration: EmulatedReaderConfiguration

    enum TimedAction: Sendable, Equatable {
        case idleTimeout
        case restartComplete
        case lateAnswers
        case swipe(command: Int)
        case commandTimeout(command: Int)
        case insertCard
        case removeCard
        case reset
        case resetWarning
        case resetRestartDone
        case batteryStep
        case firmwareTimer
        case firmwareSerialDrain
        case firmwareAcknowledge(block: Int)
        case firmwareDisconnect
        case firmwareRestartDone
    }

    /// Whether the reader runs, or restarts after a firmware update.
    enum RestartState: Equatable {
        case running
        /// After a scheduled reset, silent until it runs again.
        case resetting
        /// The image is verified; the reader drops the link shortly and restarts on `version`.
        case pending(version: String?)
        case restarting
    }

    /// A command waiting for the cardholder: READ MAGNETIC STRIPE or ICC POWER ON.
    struct WaitingCommand {
        var number: Int
        var code: CommandCode
    }

    enum Slot {
        case empty
        case present
        case powered(T0CardChannel)
    }

    struct ActiveConnection {
        var id: Int
        var continuation: AsyncStream<LinkInbound>.Continuation
        var battery: AsyncStream<UInt8>.Continuation
        var maximumNotificationLength: Int
        /// Whether the transport encrypted the link: what RX writes need from firmware 3.0.
        var isEncrypted: Bool
    }

    let clock: ElapsedClock
    let logger: Logger
    var connection: ActiveConnection?
    var connectionCount = 0
    var decoder = FrameDecoder()
    var emitter: NotificationEmitter
    var timeline = Timeline<TimedAction>()
    var battery: UInt8
    var slot: Slot
    var waiting: WaitingCommand?
    var commandCount = 0
    var apduCount = 0
    var responseCount = 0
    var writeCount = 0
    /// What the reader has sent on one connection: its TX notifications, and the drop if
    /// the reader dropped it.
    public struct Outbound: Sendable, Hashable {
        /// The connection (``Connection/id``); 0 before the first.
        public var connection: Int
        /// Notifications, and the drop, in the order sent.
        public var items: Int
    }

    /// What the reader sent on its latest connection (the one open, or the last to end): a
    /// test that has seen the host take as many items from that connection, or close it,
    /// knows nothing the reader sent is on its way.
    public internal(set) var sentOnLatestConnection = Outbound(connection: 0, items: 0)
    /// Responses interrupted by a restart (`restart-mid-frame`), sent whole once it is over.
    var resentAfterRestart: [[UInt8]] = []
    /// How late the command being handled is answered (`late-answer`), if it is.
    var answerDelay: Duration?
    /// Answers held back by `late-answer`, in order.
    var lateAnswers: [[UInt8]] = []
    /// The firmware version GET INFO reports: the configuration's until an update succeeds.
    public internal(set) var firmwareVersion: String?
    /// The firmware transfer under way, if any.
    var firmware: FirmwareReception?
    var restart = RestartState.running
    var restartWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var waiterCount = 0
    /// The hosts the reader keeps a bond with, oldest first (§1.1).
    var bonds: [Bond]
    /// When pairing mode ends, as time since the reader started; nil: never again unless
    /// the button is held.
    var pairingModeEnds: Duration?
    /// The pairing under way, if any.
    var pairing: PairingInProgress?
    /// Callers of ``waitUntilQuiet()``.
    var quietWaiters: [CheckedContinuation<Void, Never>] = []
    /// Why the reader last dropped a link (its idle rule `idle-timeout`, a scheduled reset
    /// `reader-reset`, a firmware restart `firmware-restart`, a scenario's fault), which the
    /// link itself reports only as `remote-disconnected`.
    public internal(set) var lastDropCause: LinkError?

    /// A reader holding `card` (nil: the cardholder has none) under `scenario`, reading
    /// time from `clock`. Logs carry command codes and statuses only, never card data, and
    /// the reader's name as `reader` when its configuration has one.
    public init(
        card: EmulatedCard? = nil, scenario: EmulatorScenario = EmulatorScenario(),
        configuration: EmulatedReaderConfiguration = EmulatedReaderConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = .disabled
    ) {
        self.card = card
        self.scenario = scenario
        self.configuration = configuration
        self.clock = ElapsedClock(clock)
        var logger = logger
        if let name = configuration.name { logger[metadataKey: "reader"] = "\(name)" }
        self.logger = logger
        emitter = NotificationEmitter(scenario: scenario)
        firmwareVersion = configuration.info.firmwareVersion
        battery = scenario.batteryPercent ?? configuration.info.batteryPercent ?? 100
        let inSlot = scenario.cardInsertedAtStart || (scenario.removeAfter != nil && scenario.insertAfter == nil)
        slot = card != nil && inSlot ? .present : .empty
        let serial = configuration.info.serialNumber ?? ""
        // A reader before firmware 3.0 does not pair, so it keeps no bond.
        let bonded =
            scenario.bondsForgotten || !LinkSecurityPolicy.requiresEncryption(firmwareRevision: configuration.info.firmwareVersion)
            ? [] : configuration.bondedHosts.suffix(configuration.maximumBonds)
        bonds = bonded.map {
            Bond(host: $0, key: EmulatedHost.installationKey(host: $0, readerSerial: serial))
        }
        pairingModeEnds = scenario.pairingModeAtStart ? configuration.pairingModeDuration : nil
    }

    // MARK: - Host side

    /// A host connects, with notifications of at most `maximumNotificationLength` bytes,
    /// 18…244 (ATT MTU − 3 in process; MTU − 5 through bluetoothd, whose Multiple Handle
    /// Value Notifications carry no more). One central at a time: a second is refused.
    /// `encrypted` says whether the transport encrypted the link (bluetoothd, for a
    /// characteristic flagged `encrypt-write`; in process, ``encryptionKeyAccepted(host:key:)``):
    /// from firmware 3.0 the reader takes RX writes only on an encrypted link.
    ///
    /// What the reader announces at a connection (a reset within its warning time, a low
    /// battery) goes out once the host has subscribed to TX: at once by default, else at
    /// ``hostSubscribed(connection:)`` (a transport that connects before the host enables
    /// notifications), as the reader's firmware sends nothing that could not be delivered.
    public func connect(maximumNotificationLength: Int, encrypted: Bool = false, subscribed: Bool = true) throws(LinkError)
        -> Connection
    {
        guard connection == nil else {
            throw LinkError(.connectionRefused, "the emulated reader already has a central connected")
        }
        guard restart != .restarting, restart != .resetting else {
            throw LinkError(.connectionRefused, "the emulated reader is restarting")
        }
        // 18 bytes: MTU 23 less the 5 a Multiple Handle Value Notification takes (BlueZ).
        guard (18...244).contains(maximumNotificationLength) else {
            throw LinkError(.invalidMTU, "notifications must carry 18…244 bytes (ATT MTU 23…247)")
        }
        connectionCount += 1
        let (stream, continuation) = AsyncStream.makeStream(of: LinkInbound.self)
        let (levels, levelContinuation) = AsyncStream.makeStream(of: UInt8.self, bufferingPolicy: .bufferingNewest(8))
        levelContinuation.yield(battery)
        sentOnLatestConnection = Outbound(connection: connectionCount, items: 0)
        connection = ActiveConnection(
            id: connectionCount, continuation: continuation, battery: levelContinuation,
            maximumNotificationLength: maximumNotificationLength, isEncrypted: encrypted)
        decoder.reset()
        let now = clock.elapsed()
        if connectionCount == 1 {
            if let delay = scenario.insertAfter { schedule(.insertCard, at: now + delay) }
            if let delay = scenario.removeAfter { schedule(.removeCard, at: now + delay) }
            if let seconds = scenario.resetAfter { scheduleReset(at: now + .seconds(Int(seconds))) }
            if let step = batteryStepInterval { schedule(.batteryStep, at: now + step) }
        }
        if subscribed { announceAtConnection() }
        refreshIdleTimer()
        logger.debug("host connected", metadata: ["connection": "\(connectionCount)"])
        return Connection(id: connectionCount, notifications: stream, batteryLevels: levels)
    }

    /// The host of `connection` enabled TX notifications: what the reader announces at a
    /// connection goes out now. Ignored for a connection that has ended.
    public func hostSubscribed(connection id: Int) {
        guard connection?.id == id else { return }
        announceAtConnection()
    }

    /// A low battery, and a reset due within the warning time.
    private func announceAtConnection() {
        if battery < configuration.batteryWarningPercent { send(event: .batteryLow(percent: battery)) }
        if let resetAt = timeline.deadline(of: .reset), resetAt - clock.elapsed() <= configuration.resetWarning {
            warnOfReset(at: resetAt)
        }
    }

    /// Waits as long as the scenario makes connections wait (`slow-connect`); throws when
    /// the waiting task is cancelled.
    public func waitToAcceptConnection() async throws {
        guard let delay = scenario.connectDelay else { return }
        try await clock.sleep(clock.elapsed() + delay)
    }

    /// One packet the host wrote to RX. Fails once that connection has ended.
    public func receive(_ packet: [UInt8], connection id: Int) throws(LinkError) {
        guard let current = connection, current.id == id else {
            throw LinkError(.notConnected, "the emulated reader's link is closed")
        }
        guard current.isEncrypted || !requiresEncryption else {
            throw LinkError(
                .insufficientEncryption,
                "the reader answered ATT error Insufficient Encryption (0x0F): from firmware 3.0, RX takes writes only on an encrypted link")
        }
        writeCount += 1
        if scenario.refuseWrite?.contains(writeCount) == true {
            throw LinkError(.writeRefused, "the emulated reader refused the write (scenario)")
        }
        guard firmware == nil else { return receiveFirmware(packet) }
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

    /// The link's notifications may now carry `length` bytes (18…244): a transport that
    /// learns the ATT MTU after the connection began (bluetoothd reports it with each
    /// write) says so. Ignored for a connection that has ended.
    public func setNotificationLength(_ length: Int, connection id: Int) throws(LinkError) {
        guard (18...244).contains(length) else {
            throw LinkError(.invalidMTU, "notifications must carry 18…244 bytes (ATT MTU 23…247)")
        }
        guard connection?.id == id else { return }
        connection?.maximumNotificationLength = length
    }

    /// The host disconnects. A waiting command is abandoned unanswered; a powered card is
    /// powered off. Idempotent.
    public func disconnect(connection id: Int) {
        guard connection?.id == id else { return }
        endConnection(dropping: nil)
    }

    // MARK: - Timed actions

    func perform(_ action: TimedAction) {
        switch action {
        case .idleTimeout:
            endConnection(dropping: LinkError(.idleTimeout, "no command for \(idleTimeout)"))
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
            resetNow()
        case .resetWarning:
            if let resetAt = timeline.deadline(of: .reset) { warnOfReset(at: resetAt) }
        case .resetRestartDone:
            resetRestartDone()
        case .batteryStep:
            stepBattery()
        case .firmwareTimer:
            firmwareTimerFired()
        case .firmwareSerialDrain:
            drainSerialLine()
        case .firmwareAcknowledge(let block):
            acknowledgeLate(block: block)
        case .firmwareDisconnect:
            restartOnNewFirmware()
        case .firmwareRestartDone:
            restartDone()
        }
        refreshIdleTimer()
    }

    func insertCard() {
        guard card != nil, case .empty = slot else { return }
        slot = .present
        send(event: .cardInserted)
        if let command = waiting, command.code == .iccPowerOn {
            _ = takeWaitingCommand()
            powerOn(command.code)
        }
    }

    func removeCard() {
        if case .empty = slot { return }
        slot = .empty
        send(event: .cardRemoved)
    }

    func refreshIdleTimer() {
        timeline.cancel(.idleTimeout)
        guard connection != nil, waiting == nil, firmware == nil else { return }
        schedule(.idleTimeout, at: clock.elapsed() + idleTimeout)
    }

    /// How long a link may carry no command: the scenario's `idle-timeout`, else the
    /// configuration's.
    var idleTimeout: Duration { scenario.idleTimeout ?? configuration.idleTimeout }

    func schedule(_ action: TimedAction, at deadline: Duration) {
        guard let wakeUp = timeline.schedule(action, at: deadline) else { return }
        clock.startTimer(until: wakeUp) { [weak self] in await self?.timerWoke(from: $0) }
    }

    /// A timer woke: performs every action due, and says when it wakes next, if it does.
    func timerWoke(from wakeUp: Duration) -> Duration? {
        let now = clock.elapsed()
        while let action = timeline.popDue(at: now) {
            perform(action)
        }
        if !quietWaiters.isEmpty, !timeline.hasDue(at: now) {
            let waiters = quietWaiters
            quietWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
        return timeline.sleeperWoke(from: wakeUp)
    }

    /// How long until the reader's earliest timer is due, if one is scheduled: with
    /// ``waitUntilQuiet()``, what lets a test step a ``ManualClock`` from one of the reader's
    /// timers to the next even before the task that sleeps for it is asleep again.
    public var timeUntilNextTimer: Duration? { timeline.earliestDeadline.map { $0 - clock.elapsed() } }

    /// Returns once no timer of the reader's is due and not yet acted on: for a test that
    /// steps a ``ManualClock``, so that what the time it reached asks of the reader (an
    /// idle drop, a reset, a battery step) has happened before it moves on.
    public func waitUntilQuiet() async {
        guard timeline.hasDue(at: clock.elapsed()) else { return }
        await withCheckedContinuation { quietWaiters.append($0) }
    }

    // MARK: - Sending

    func endConnection(dropping reason: LinkError?) {
        if firmware != nil {
            logger.info("link lost during the firmware transfer; old firmware kept")
            firmware = nil
            timeline.cancel(.firmwareTimer)
        }
        _ = takeWaitingCommand()
        if case .powered = slot { slot = .present }
        timeline.cancel(.idleTimeout)
        guard let ended = connection else { return }
        connection = nil
        if let reason {
            logger.debug("dropping the link", metadata: ["reason": "\(reason.code)"])
            lastDropCause = reason
            ended.continuation.yield(.dropped(LinkError(.remoteDisconnected, "the reader disconnected")))
            sentOnLatestConnection.items += 1
        }
        ended.continuation.finish()
        ended.battery.finish()
    }

    func answer(_ code: CommandCode, _ status: ReaderStatus, _ body: ResponseBody = .empty) {
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

    func sendLateAnswers() {
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

    func send(event: ReaderEvent) {
        // During a firmware transfer the reader sends no events (§7.2).
        guard firmware == nil, let bytes = try? event.frame.encoded() else { return }
        sendFrame(bytes)
    }

    func sendFrame(_ bytes: [UInt8]) {
        guard let connection else { return }
        for packet in emitter.notifications(forFrame: bytes, maximumLength: connection.maximumNotificationLength) {
            connection.continuation.yield(.notification(packet))
            sentOnLatestConnection.items += 1
        }
    }
}
