import ReaderProtocol

extension ScenarioStep {
    /// Every step, in the order `readerctl scenarios` lists them.
    static let all: [ScenarioStep] = [
        ScenarioStep(
            "swipe-after", takes: "=SECONDS",
            does: "swipe SECONDS after READ MAGNETIC STRIPE starts waiting (default 0: at once)"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.swipe = .after(.seconds(try value.number(Value.seconds)))
        },
        ScenarioStep("no-swipe", does: "never swipe: READ MAGNETIC STRIPE times out (01)") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.swipe = .never
        },
        ScenarioStep("bad-swipe", does: "swipes read no track (03)") { scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.badSwipe = true
        },
        ScenarioStep(
            "insert-when-asked", takes: "=SECONDS",
            does: "insert the card SECONDS after ICC POWER ON starts waiting (default 0: at once)"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.insertion = .whenAsked(after: .seconds(try value.number(Value.seconds, default: 0)))
        },
        ScenarioStep("no-insert", does: "never insert the card when asked: ICC POWER ON waits out (01)") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.insertion = .never
        },
        ScenarioStep("card-inserted", does: "the card is in the chip slot from the start") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.cardInsertedAtStart = true
        },
        ScenarioStep(
            "insert-after", takes: "=SECONDS",
            does: "insert the card SECONDS after the first connection (E0 01); nobody inserts it when asked"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.insertAfter = .seconds(try value.number(Value.seconds))
        },
        ScenarioStep(
            "remove-after", takes: "=SECONDS",
            does: "remove the card SECONDS after the first connection (E0 02); nobody inserts it when asked"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.removeAfter = .seconds(try value.number(Value.seconds))
        },
        ScenarioStep(
            "remove-card-during-apdu", takes: "[=N]", does: "pull the card out during the Nth APDU (E0 02, then 05)"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.removeDuringAPDU = try value.number(Value.ordinal, default: 1)
        },
        ScenarioStep("battery", takes: "=PERCENT", does: "battery level") {
            scenario, value throws(EmulatorScenarioError) in scenario.batteryPercent = UInt8(try value.number(0...100))
        },
        ScenarioStep(
            "low-battery", takes: "[=PERCENT]",
            does: "battery level (default 5): E0 03 on connect, 0B for swipe and power on"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.batteryPercent = UInt8(try value.number(0...100, default: 5))
        },
        ScenarioStep(
            "reset-after", takes: "=SECONDS",
            does: "first scheduled reset (then daily): E0 04 ahead, the link drops, silence, back"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.resetAfter = UInt16(try value.number(1...Int(UInt16.max)))
        },
        ScenarioStep("reset-every", takes: "=SECONDS", does: "scheduled resets this far apart instead of daily") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.resetEvery = .seconds(try value.number(1...Int(UInt16.max)))
        },
        ScenarioStep("idle-timeout", takes: "=SECONDS", does: "drop a link without a command this long (default 300)") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.idleTimeout = .seconds(try value.number(1...Int(UInt16.max)))
        },
        ScenarioStep(
            "battery-drain", takes: "=PERCENT_PER_HOUR",
            does: "battery falls 1 % at a time: Battery service level, E0 03 below 20 %"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.batteryDrainPerHour = try value.number(1...3600)
        },
        ScenarioStep("battery-charge", takes: "=PERCENT_PER_HOUR", does: "battery rises 1 % at a time, to 100 %") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.batteryChargePerHour = try value.number(1...3600)
        },
        ScenarioStep("busy", takes: "[=N]", does: "every command (or the Nth) answers 08") {
            scenario, value throws(EmulatorScenarioError) in scenario.busy = try value.selection()
        },
        ScenarioStep("silent", takes: "[=N]", does: "every command (or the Nth) goes unanswered") {
            scenario, value throws(EmulatorScenarioError) in scenario.silent = try value.selection()
        },
        ScenarioStep("corrupt-notification", takes: "=N", does: "invert the last byte of the Nth notification") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.corruptNotification = try value.number(Value.ordinal)
        },
        ScenarioStep("drop-notification", takes: "=N", does: "never send the Nth notification") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.dropNotification = try value.number(Value.ordinal)
        },
        ScenarioStep("noise", takes: "[=BYTES]", does: "line noise (default 4 bytes) before every frame") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.noiseLength = try value.number(1...244, default: 4)
        },
        ScenarioStep(
            "drop-mid-frame", takes: "[=N]", does: "cut the Nth response (default 1st) halfway and drop the link"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.dropMidFrame = try value.number(Value.ordinal, default: 1)
        },
        ScenarioStep(
            "restart-mid-frame", takes: "[=N]",
            does:
                "the reader restarts inside the Nth response (default 1st): the start of a longer frame, then 80 ms later "
                + "the response; the link stays up"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.restartMidFrame = try value.number(Value.ordinal, default: 1)
        },
        ScenarioStep(
            "false-stx", takes: "[=N]",
            does: "noise with a false STX declaring 272 bytes (FF 02 00 07 01 10) right before the Nth frame sent "
                + "(default 1st), in the same notification"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.falseStartBefore = try value.number(Value.ordinal, default: 1)
        },
        ScenarioStep(
            "false-stx-split", takes: "[=N]", does: "the same noise split across two notifications (FF 02 00, 07 01 10)"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.splitFalseStartBefore = try value.number(Value.ordinal, default: 1)
        },
        ScenarioStep(
            "drop-in-frame", takes: "=N", does: "the Nth frame sent (responses and events) loses its last notification"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.dropInFrame = try value.number(Value.ordinal)
        },
        ScenarioStep("duplicate-in-frame", takes: "=N", does: "the first notification of the Nth frame is sent twice") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.duplicateInFrame = try value.number(Value.ordinal)
        },
        ScenarioStep("corrupt-frame", takes: "=N", does: "the last byte of the Nth frame is inverted") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.corruptFrame = try value.number(Value.ordinal)
        },
        ScenarioStep("reorder-frame", takes: "=N", does: "the first two notifications of the Nth frame change places") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.reorderFrame = try value.number(Value.ordinal)
        },
        ScenarioStep("cut-frame", takes: "=N", does: "the Nth frame stops halfway; the link stays up") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.cutFrame = try value.number(Value.ordinal)
        },
        ScenarioStep("duplicate-frame", takes: "=N", does: "the Nth frame is sent twice") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.duplicateFrame = try value.number(Value.ordinal)
        },
        ScenarioStep(
            "late-answer", takes: "[=N]", does: "every command (or the Nth) is answered 1.5 s after its documented time"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.lateAnswer = try value.selection()
        },
        ScenarioStep(
            "wrong-code", takes: "[=N]", does: "every command (or the Nth) is answered under another command's code"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.wrongCode = try value.selection()
        },
        ScenarioStep("slow-connect", takes: "=SECONDS", does: "every connection is accepted only after SECONDS") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.connectDelay = .seconds(try value.number(Value.seconds))
        },
        ScenarioStep("refuse-write", takes: "[=N]", does: "every write (or the Nth) fails") {
            scenario, value throws(EmulatorScenarioError) in scenario.refuseWrite = try value.selection()
        },
        ScenarioStep(
            "drop-before-answer", takes: "[=N]",
            does: "every command (or the Nth) gets no answer: the link drops instead"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.dropBeforeAnswer = try value.selection()
        },
        ScenarioStep(
            "malformed-answer", takes: "[=N]",
            does: "every command (or the Nth) is answered 00 with DATA that does not decode"
        ) { scenario, value throws(EmulatorScenarioError) in scenario.malformedAnswer = try value.selection() },
        ScenarioStep(
            "reject", takes: "=MAINSUB:STATUS",
            does: "the reader answers that command with that status, e.g. reject=C107:07"
        ) { scenario, value throws(EmulatorScenarioError) in
            let (key, status) = try value.hexPair(keyDigits: 4, valueDigits: 2, example: "C107:07")
            scenario.rejections[CommandCode(main: UInt8(key >> 8), sub: UInt8(key & 0xFF))] = ReaderStatus(
                rawValue: UInt8(status))
        },
        ScenarioStep(
            "card-sw", takes: "=INS:SW",
            does: "the card answers that instruction with that status word, e.g. card-sw=A8:6985"
        ) { scenario, value throws(EmulatorScenarioError) in
            let (ins, sw) = try value.hexPair(keyDigits: 2, valueDigits: 4, example: "A8:6985")
            scenario.cardStatusWords[UInt8(ins)] = StatusWord(UInt16(sw))
        },
        ScenarioStep(
            "firmware-nak", takes: "=BLOCK[:TIMES]",
            does: "answer NAK to the first TIMES (default 1) attempts at that data block"
        ) { scenario, value throws(EmulatorScenarioError) in
            let (block, times) = try value.decimalPair(
                Value.ordinal, 1...100, defaultSecond: 1, expected: "BLOCK or BLOCK:TIMES, as in firmware-nak=3:2")
            scenario.firmwareRefusals[block] = times
        },
        ScenarioStep(
            "firmware-cancel-at", takes: "=BLOCK", does: "abort the firmware transfer (CAN CAN) at that data block"
        ) { scenario, value throws(EmulatorScenarioError) in
            scenario.firmwareCancelAtBlock = try value.number(Value.ordinal)
        },
        ScenarioStep("firmware-drop-at", takes: "=BLOCK", does: "drop the link at that data block (old firmware kept)")
        { scenario, value throws(EmulatorScenarioError) in
            scenario.firmwareDropAtBlock = try value.number(Value.ordinal)
        },
        ScenarioStep("firmware-slow-ack", takes: "=MS", does: "acknowledge every data block MS milliseconds late") {
            scenario, value throws(EmulatorScenarioError) in
            scenario.firmwareAckDelay = .milliseconds(try value.number(0...60_000))
        },
        ScenarioStep(
            "firmware-corrupt", does: "the received image fails its CRC-32 check (CAN CAN after the last block)"
        ) { scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.firmwareCorrupt = true
        },
        ScenarioStep("firmware-no-restart", does: "after a good update the reader never comes back") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.firmwareNoRestart = true
        },
        ScenarioStep("firmware-keeps-version", does: "after a good update the reader comes back on its old version") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.firmwareKeepsVersion = true
        },
        ScenarioStep(
            "firmware-uart", takes: "=BYTES:RATE",
            does: "the update passes a UART: a BYTES buffer drained at RATE bytes/s, overflow lost"
        ) { scenario, value throws(EmulatorScenarioError) in
            let (capacity, rate) = try value.decimalPair(
                1...65_536, 100...10_000_000, expected: "BYTES:BYTES_PER_SECOND, as in firmware-uart=512:11520")
            scenario.firmwareUART = EmulatorScenario.SerialLine(capacity: capacity, bytesPerSecond: rate)
        },
        ScenarioStep("not-in-pairing-mode", does: "pairing mode is over: pairing from a new host is refused (SMP 05)") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.pairingModeAtStart = false
        },
        ScenarioStep("bond-forgotten", does: "the reader has forgotten its bonds: a bonded host cannot encrypt") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.bondsForgotten = true
        },
        ScenarioStep("passkey", does: "the reader has a display: it pairs by Passkey Entry") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.displaysPasskey = true
        },
        ScenarioStep("wrong-passkey", does: "every passkey typed is refused (SMP 04), as if typed wrong") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.displaysPasskey = true
            scenario.refusesPasskeys = true
        },
        ScenarioStep("pairing-stalls", does: "the reader never answers a pairing request") {
            scenario, value throws(EmulatorScenarioError) in
            try value.flag()
            scenario.pairingStalls = true
        },
    ]
}
