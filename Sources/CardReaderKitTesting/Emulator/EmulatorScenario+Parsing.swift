import ReaderProtocol

/// The compact CLI syntax: steps `name` or `name=value`, several per argument separated by
/// commas; later steps override earlier ones that set the same property.
extension EmulatorScenario {
    /// The steps, for `--help`.
    public static let syntax = """
        swipe-after=SECONDS        swipe SECONDS after READ MAGNETIC STRIPE starts waiting (default 0: at once)
        no-swipe                   never swipe: READ MAGNETIC STRIPE times out (01)
        bad-swipe                  swipes read no track (03)
        insert-when-asked=SECONDS  insert the card SECONDS after ICC POWER ON starts waiting (default 0: at once)
        no-insert                  never insert the card when asked: ICC POWER ON waits out (01)
        card-inserted              the card is in the chip slot from the start
        insert-after=SECONDS       insert the card SECONDS after the first connection (E0 01); nobody
                                   inserts it when asked
        remove-after=SECONDS       remove the card SECONDS after the first connection (E0 02); nobody
                                   inserts it when asked
        remove-card-during-apdu[=N]  pull the card out during the Nth APDU (E0 02, then 05)
        battery=PERCENT            battery level
        low-battery[=PERCENT]      battery level (default 5): E0 03 on connect, 0B for swipe and power on
        reset-after=SECONDS        scheduled reset: E0 04 on connect, link drops (reader-reset)
        busy[=N]                   every command (or the Nth) answers 08
        silent[=N]                 every command (or the Nth) goes unanswered
        corrupt-notification=N     invert the last byte of the Nth notification
        drop-notification=N        never send the Nth notification
        noise[=BYTES]              line noise (default 4 bytes) before every frame
        drop-mid-frame[=N]         cut the Nth response (default 1st) halfway and drop the link
        restart-mid-frame[=N]      the reader restarts inside the Nth response (default 1st): the start of
                                   a longer frame, then 80 ms later the response; the link stays up
        false-stx[=N]              noise with a false STX declaring 272 bytes (FF 02 00 07 01 10) right
                                   before the Nth frame sent (default 1st), in the same notification
        false-stx-split[=N]        the same noise split across two notifications (FF 02 00, 07 01 10)
        drop-in-frame=N            the Nth frame sent (responses and events) loses its last notification
        duplicate-in-frame=N       the first notification of the Nth frame is sent twice
        corrupt-frame=N            the last byte of the Nth frame is inverted
        reorder-frame=N            the first two notifications of the Nth frame change places
        cut-frame=N                the Nth frame stops halfway; the link stays up
        duplicate-frame=N          the Nth frame is sent twice
        late-answer[=N]            every command (or the Nth) is answered 1.5 s after its documented time
        wrong-code[=N]             every command (or the Nth) is answered under another command's code
        slow-connect=SECONDS       every connection is accepted only after SECONDS
        refuse-write[=N]           every write (or the Nth) fails
        drop-before-answer[=N]     every command (or the Nth) gets no answer: the link drops instead
        malformed-answer[=N]       every command (or the Nth) is answered 00 with DATA that does not decode
        reject=MAINSUB:STATUS      the reader answers that command with that status, e.g. reject=C107:07
        card-sw=INS:SW             the card answers that instruction with that status word, e.g. card-sw=A8:6985
        firmware-nak=BLOCK[:TIMES] answer NAK to the first TIMES (default 1) attempts at that data block
        firmware-cancel-at=BLOCK   abort the firmware transfer (CAN CAN) at that data block
        firmware-drop-at=BLOCK     drop the link at that data block (old firmware kept)
        firmware-slow-ack=MS       acknowledge every data block MS milliseconds late
        firmware-corrupt           the received image fails its CRC-32 check (CAN CAN after the last block)
        firmware-no-restart        after a good update the reader never comes back
        firmware-keeps-version     after a good update the reader comes back on its old version
        firmware-uart=BYTES:RATE   the update passes a UART: a BYTES buffer drained at RATE bytes/s, overflow lost
        """

    /// Parses steps such as `["swipe-after=2", "remove-card-during-apdu,low-battery"]`.
    public init(parsing arguments: some Sequence<String>) throws(EmulatorScenarioError) {
        self.init()
        for argument in arguments {
            for step in argument.split(separator: ",", omittingEmptySubsequences: true) {
                try apply(String(step.trimmingWhitespace))
            }
        }
    }

    /// Applies one step, e.g. `swipe-after=2`.
    public mutating func apply(_ step: String) throws(EmulatorScenarioError) {
        let parts = step.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        let value = parts.count > 1 ? String(parts[1]) : nil

        func number(_ range: ClosedRange<Int>, default fallback: Int? = nil) throws(EmulatorScenarioError) -> Int {
            guard let value else {
                guard let fallback else { throw EmulatorScenarioError(step: step, problem: .missingValue) }
                return fallback
            }
            guard let parsed = Int(value), range.contains(parsed) else {
                throw EmulatorScenarioError(
                    step: step, problem: .invalidValue(expected: "a whole number in \(range.lowerBound)…\(range.upperBound)"))
            }
            return parsed
        }
        /// `KEY:VALUE` in hex with exactly these numbers of digits.
        func hexPair(keyDigits: Int, valueDigits: Int, example: String) throws(EmulatorScenarioError) -> (Int, Int) {
            let fields = value?.split(separator: ":", omittingEmptySubsequences: false) ?? []
            guard fields.count == 2, fields[0].count == keyDigits, fields[1].count == valueDigits,
                let key = Int(fields[0], radix: 16), let result = Int(fields[1], radix: 16)
            else {
                throw EmulatorScenarioError(
                    step: step,
                    problem: .invalidValue(expected: "\(keyDigits) and \(valueDigits) hex digits, as in \(name)=\(example)"))
            }
            return (key, result)
        }
        func flag() throws(EmulatorScenarioError) {
            guard value == nil else { throw EmulatorScenarioError(step: step, problem: .unexpectedValue) }
        }
        let seconds = 0...86_400
        let ordinal = 1...1_000_000

        switch name {
        case "swipe-after": swipe = .after(.seconds(try number(seconds)))
        case "no-swipe": try flag(); swipe = .never
        case "bad-swipe": try flag(); badSwipe = true
        case "insert-when-asked": insertion = .whenAsked(after: .seconds(try number(seconds, default: 0)))
        case "no-insert": try flag(); insertion = .never
        case "card-inserted": try flag(); cardInsertedAtStart = true
        case "insert-after": insertAfter = .seconds(try number(seconds))
        case "remove-after": removeAfter = .seconds(try number(seconds))
        case "remove-card-during-apdu": removeDuringAPDU = try number(ordinal, default: 1)
        case "battery": batteryPercent = UInt8(try number(0...100))
        case "low-battery": batteryPercent = UInt8(try number(0...100, default: 5))
        case "reset-after": resetAfter = UInt16(try number(1...Int(UInt16.max)))
        case "busy": busy = value == nil ? .every : .number(try number(ordinal))
        case "silent": silent = value == nil ? .every : .number(try number(ordinal))
        case "corrupt-notification": corruptNotification = try number(ordinal)
        case "drop-notification": dropNotification = try number(ordinal)
        case "noise": noiseLength = try number(1...244, default: 4)
        case "drop-mid-frame": dropMidFrame = try number(ordinal, default: 1)
        case "restart-mid-frame": restartMidFrame = try number(ordinal, default: 1)
        case "false-stx": falseStartBefore = try number(ordinal, default: 1)
        case "false-stx-split": splitFalseStartBefore = try number(ordinal, default: 1)
        case "drop-in-frame": dropInFrame = try number(ordinal)
        case "duplicate-in-frame": duplicateInFrame = try number(ordinal)
        case "corrupt-frame": corruptFrame = try number(ordinal)
        case "reorder-frame": reorderFrame = try number(ordinal)
        case "cut-frame": cutFrame = try number(ordinal)
        case "duplicate-frame": duplicateFrame = try number(ordinal)
        case "late-answer": lateAnswer = value == nil ? .every : .number(try number(ordinal))
        case "wrong-code": wrongCode = value == nil ? .every : .number(try number(ordinal))
        case "slow-connect": connectDelay = .seconds(try number(seconds))
        case "refuse-write": refuseWrite = value == nil ? .every : .number(try number(ordinal))
        case "drop-before-answer": dropBeforeAnswer = value == nil ? .every : .number(try number(ordinal))
        case "malformed-answer": malformedAnswer = value == nil ? .every : .number(try number(ordinal))
        case "reject":
            let (key, status) = try hexPair(keyDigits: 4, valueDigits: 2, example: "C107:07")
            rejections[CommandCode(main: UInt8(key >> 8), sub: UInt8(key & 0xFF))] = ReaderStatus(rawValue: UInt8(status))
        case "card-sw":
            let (ins, sw) = try hexPair(keyDigits: 2, valueDigits: 4, example: "A8:6985")
            cardStatusWords[UInt8(ins)] = StatusWord(UInt16(sw))
        case "firmware-nak":
            let fields = value?.split(separator: ":", omittingEmptySubsequences: false) ?? []
            guard (1...2).contains(fields.count), let block = Int(fields[0]), ordinal.contains(block),
                let times = fields.count == 2 ? Int(fields[1]) : 1, (1...100).contains(times)
            else {
                throw EmulatorScenarioError(
                    step: step, problem: .invalidValue(expected: "BLOCK or BLOCK:TIMES, as in firmware-nak=3:2"))
            }
            firmwareRefusals[block] = times
        case "firmware-cancel-at": firmwareCancelAtBlock = try number(ordinal)
        case "firmware-drop-at": firmwareDropAtBlock = try number(ordinal)
        case "firmware-slow-ack": firmwareAckDelay = .milliseconds(try number(0...60_000))
        case "firmware-corrupt": try flag(); firmwareCorrupt = true
        case "firmware-no-restart": try flag(); firmwareNoRestart = true
        case "firmware-keeps-version": try flag(); firmwareKeepsVersion = true
        case "firmware-uart":
            let fields = value?.split(separator: ":", omittingEmptySubsequences: false) ?? []
            guard fields.count == 2, let capacity = Int(fields[0]), (1...65_536).contains(capacity),
                let rate = Int(fields[1]), (100...10_000_000).contains(rate)
            else {
                throw EmulatorScenarioError(
                    step: step, problem: .invalidValue(expected: "BYTES:BYTES_PER_SECOND, as in firmware-uart=512:11520"))
            }
            firmwareUART = SerialLine(capacity: capacity, bytesPerSecond: rate)
        default: throw EmulatorScenarioError(step: step, problem: .unknownStep)
        }
    }
}

/// A scenario step that does not parse.
public struct EmulatorScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The step as written.
    public var step: String
    /// Why it does not parse.
    public var problem: Problem

    /// What is wrong with a step.
    public enum Problem: Sendable, Hashable {
        /// No step has this name.
        case unknownStep
        /// The step needs `=value`.
        case missingValue
        /// The step takes no value.
        case unexpectedValue
        /// The value is not what the step takes.
        case invalidValue(expected: String)
    }

    /// A `problem` with the step `step`, as written.
    public init(step: String, problem: Problem) {
        self.step = step
        self.problem = problem
    }

    /// The step as written and what is wrong, e.g. `scenario step 'swipe-after' needs a value (name=value)`.
    public var description: String {
        switch problem {
        case .unknownStep: "unknown scenario step '\(step)'"
        case .missingValue: "scenario step '\(step)' needs a value (name=value)"
        case .unexpectedValue: "scenario step '\(step)' takes no value"
        case .invalidValue(let expected): "scenario step '\(step)': the value must be \(expected)"
        }
    }
}

extension Substring {
    /// Without leading and trailing white space.
    fileprivate var trimmingWhitespace: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
