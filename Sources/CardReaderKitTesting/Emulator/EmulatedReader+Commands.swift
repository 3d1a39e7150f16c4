import CardReaderCore
import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// The reader's side of each command: its answer and status (reader documentation §3–§5).
extension EmulatedReader {
    func handle(_ frame: Frame) {
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
        case .failure(let error) where error.code == .unknownCommand: answer(code, .unknownCommand)
        case .failure: answer(code, .invalidParameter)
        }
    }

    /// A command's documented answer time (§8).
    static func answerTime(of command: ReaderCommand) -> Duration {
        switch command {
        case .readMagneticStripe(let seconds):
            .seconds(Int(seconds == 0 ? ReaderCommand.defaultSwipeTimeoutSeconds : seconds) + 1)
        case .iccPowerOn(let seconds): .seconds(Int(seconds) + 2)
        case .iccAPDU: .seconds(5)
        default: .milliseconds(500)
        }
    }

    func execute(_ command: ReaderCommand, frame: Frame) {
        let code = command.code
        switch command {
        case .getInfo:
            var info = configuration.info
            // A configuration without a level is a reader whose GET INFO omits tag 04.
            if configuration.info.batteryPercent != nil || scenario.batteryPercent != nil { info.batteryPercent = battery }
            info.firmwareVersion = firmwareVersion
            answer(code, .success, .info(info))
        case .cancel:
            // Answers are sent in order: a late one goes out before CANCEL's.
            sendLateAnswers()
            if let cancelled = takeWaitingCommand() { answer(cancelled.code, .cancelled) }
            answer(code, .success)
        case .enterFirmwareUpdate(let size):
            enterFirmwareUpdate(size: size)
        case .readMagneticStripe(let seconds):
            readMagneticStripe(code, timeoutSeconds: seconds)
        case .iccPowerOn(let seconds):
            iccPowerOn(code, insertionWaitSeconds: seconds)
        case .iccAPDU(let apdu):
            transmit(apdu, code, dataLength: frame.data.count)
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

    /// READ MAGNETIC STRIPE: the swipe comes when the scenario says, or the wait times out.
    private func readMagneticStripe(_ code: CommandCode, timeoutSeconds seconds: UInt16) {
        guard battery >= configuration.batteryRefusalPercent else { return answer(code, .batteryTooLow) }
        let timeout = Duration.seconds(Int(seconds == 0 ? ReaderCommand.defaultSwipeTimeoutSeconds : seconds))
        guard card != nil, case .after(let delay) = scenario.swipe, delay < timeout else {
            return wait(code, timeout: timeout)
        }
        guard delay > .zero else { return answer(code, swipeResult()) }
        wait(code, timeout: timeout)
        schedule(.swipe(command: commandCount), at: clock.elapsed() + delay)
    }

    /// ICC POWER ON: at once with a card in the slot, else after the cardholder inserts one
    /// within the wait (or `noCard` without a wait).
    private func iccPowerOn(_ code: CommandCode, insertionWaitSeconds seconds: UInt8) {
        guard battery >= configuration.batteryRefusalPercent else { return answer(code, .batteryTooLow) }
        guard case .empty = slot else { return powerOn(code) }
        guard seconds > 0 else { return answer(code, .noCard) }
        let timeout = Duration.seconds(Int(seconds))
        wait(code, timeout: timeout)
        guard let delay = insertionDelay, delay < timeout else { return }
        if delay == .zero { insertCard() } else { schedule(.insertCard, at: clock.elapsed() + delay) }
    }

    /// ICC APDU: the powered card answers, unless the scenario pulls it out or answers for it.
    private func transmit(_ apdu: CommandAPDU, _ code: CommandCode, dataLength: Int) {
        // Only short APDUs, encoded as such (documentation §3; protocol notes).
        guard !apdu.needsExtendedLength, apdu.encoded().count == dataLength else {
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
    }

    /// How long after ICC POWER ON starts waiting the cardholder inserts the card; nil when
    /// nobody does (the scenario says so, or scripts the slot with insert-after or remove-after).
    private var insertionDelay: Duration? {
        guard scenario.insertAfter == nil, scenario.removeAfter == nil,
            case .whenAsked(let delay) = scenario.insertion
        else { return nil }
        return delay
    }

    var slotState: ICCSlotState {
        switch slot {
        case .empty: .noCard
        case .present: .cardPresent
        case .powered: .cardPowered
        }
    }

    func swipeResult() -> (ReaderStatus, ResponseBody) {
        guard !scenario.badSwipe, let stripe = card?.magneticStripe, !stripe.isEmpty else { return (.unreadableStripe, .empty) }
        return (.success, .magneticStripe(stripe))
    }

    func answer(_ code: CommandCode, _ result: (ReaderStatus, ResponseBody)) {
        answer(code, result.0, result.1)
    }

    func powerOn(_ code: CommandCode) {
        guard let chip = card?.chip, let atr = try? AnswerToReset(bytes: chip.answerToReset) else {
            return answer(code, .cardNotResponding)
        }
        slot = .powered(T0CardChannel(chip: chip))
        answer(code, .success, .answerToReset(atr))
    }

    func wait(_ code: CommandCode, timeout: Duration) {
        waiting = WaitingCommand(number: commandCount, code: code)
        schedule(.commandTimeout(command: commandCount), at: clock.elapsed() + timeout)
    }

    /// Ends the wait of the waiting command, if any, and returns it (to be answered or abandoned).
    func takeWaitingCommand() -> WaitingCommand? {
        guard let command = waiting else { return nil }
        waiting = nil
        timeline.cancel(.swipe(command: command.number))
        timeline.cancel(.commandTimeout(command: command.number))
        return command
    }
}
