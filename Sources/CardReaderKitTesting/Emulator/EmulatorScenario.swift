import ReaderProtocol

/// What happens around the emulated reader: the cardholder's actions and the faults to
/// inject. Every property has a default that gives a well-behaved reader and a cardholder
/// who does what the host asks at once.
///
/// Build one in code or parse the compact CLI syntax of ``init(parsing:)``
/// (`readerctl --emulated --scenario swipe-after=2 --scenario remove-card-during-apdu`).
/// Times count from the first host connection, except ``swipe`` and ``insertion``, which
/// count from each READ MAGNETIC STRIPE and each ICC POWER ON that waits. Command, response and notification numbers count from 1 over the
/// reader's lifetime (all connections).
public struct EmulatorScenario: Sendable, Hashable {
    /// When the cardholder swipes, once a READ MAGNETIC STRIPE waits.
    public enum Swipe: Sendable, Hashable {
        /// This long after the command starts waiting (`.zero`: at once, the default). A swipe
        /// due at or after the timeout never happens: the command answers `01`.
        case after(Duration)
        /// Never: the command times out with `01`.
        case never
    }

    /// When the cardholder inserts the card, once an ICC POWER ON waits for one.
    public enum Insertion: Sendable, Hashable {
        /// This long after the command starts waiting (`.zero`: at once, the default). An
        /// insertion due at or after the wait ends never happens: the command answers `01`.
        case whenAsked(after: Duration)
        /// Never: the slot stays as the other steps leave it.
        case never
    }

    /// Which commands a fault hits.
    public enum CommandSelection: Sendable, Hashable {
        /// Every command.
        case every
        /// Only the command with this number (from 1).
        case number(Int)

        func contains(_ number: Int) -> Bool {
            switch self {
            case .every: true
            case .number(let selected): selected == number
            }
        }
    }

    /// `swipe-after=N`, `no-swipe`.
    public var swipe: Swipe = .after(.zero)
    /// `bad-swipe`: swipes read no track, so READ MAGNETIC STRIPE answers `03`.
    public var badSwipe = false
    /// `insert-when-asked[=N]`, `no-insert`: when the cardholder inserts the card into an
    /// empty slot while ICC POWER ON waits for one (default: at once, as a cardholder asked
    /// to insert a card does). `insert-after` and `remove-after` script the slot themselves:
    /// with either, nobody inserts a card when asked.
    public var insertion: Insertion = .whenAsked(after: .zero)
    /// `card-inserted`: the chip card is in the slot from the start (default: slot empty).
    public var cardInsertedAtStart = false
    /// `insert-after=N`: the card goes into the chip slot N s after the first connection (`E0 01`).
    public var insertAfter: Duration?
    /// `remove-after=N`: the card leaves the slot N s after the first connection (`E0 02`).
    /// Without `insert-after`, the card is in the slot from the start.
    public var removeAfter: Duration?
    /// `remove-card-during-apdu[=N]`: the card is pulled out during the Nth ICC APDU that
    /// reaches a powered card (default the first): `E0 02`, then the APDU answers `05`.
    public var removeDuringAPDU: Int?
    /// `battery=P`, `low-battery[=P]` (P default 5): the battery level, overriding the
    /// configuration's. Below the warning threshold (20 %) each connection starts with
    /// `E0 03 P`; below the refusal threshold (10 %) swipes and POWER ON answer `0B`.
    public var batteryPercent: UInt8?
    /// `reset-after=N` (1…65535): the first scheduled reset, N s after the first connection;
    /// then one every ``EmulatedReaderConfiguration/resetInterval`` (a day). The reader
    /// warns with `E0 04` and the seconds left (at each connection made within
    /// ``EmulatedReaderConfiguration/resetWarning`` of it, and at that lead while connected);
    /// when they run out it drops the link, and is silent for
    /// ``EmulatedReaderConfiguration/resetRestartTime``.
    public var resetAfter: UInt16?
    /// `reset-every=N` (1…65535): resets N s apart after the first, instead of a day.
    public var resetEvery: Duration?
    /// `idle-timeout=N` (1…65535): the reader drops a link that carried no command for N s,
    /// instead of the configuration's (§8: 5 minutes).
    public var idleTimeout: Duration?
    /// `battery-drain=P` (1…3600): the battery loses one percent every 3600/P s (P % an
    /// hour) from the first connection, down to 0; each level goes out on the Battery
    /// service, and below the warning threshold `E0 03` follows at the crossing and every
    /// 5 % after.
    public var batteryDrainPerHour: Int?
    /// `battery-charge=P` (1…3600): the battery gains one percent every 3600/P s, up to 100.
    public var batteryChargePerHour: Int?
    /// `busy[=N]`: these commands answer `08` (CANCEL is never busy).
    public var busy: CommandSelection?
    /// `silent[=N]`: these commands are swallowed: no answer, no effect, as if never received.
    public var silent: CommandSelection?
    /// `corrupt-notification=N`: the Nth notification has its last byte inverted.
    public var corruptNotification: Int?
    /// `drop-notification=N`: the Nth notification is never sent.
    public var dropNotification: Int?
    /// `noise[=N]` (N default 4): a notification of N line-noise bytes (never STX) before every frame.
    public var noiseLength = 0
    /// `drop-mid-frame[=N]`: the Nth response (default the first) is cut after half its bytes
    /// and the link drops (`emulator-dropped`).
    public var dropMidFrame: Int?
    /// `restart-mid-frame[=N]`: the reader's MCU restarts while it sends the Nth response
    /// (default the first), behind its BLE module, so the link stays up: the host gets the
    /// start of a frame (the response's MAIN and SUB, a LEN 64 bytes longer than the
    /// response's, 3 bytes), then, 80 ms later, the whole response.
    public var restartMidFrame: Int?

    // Faults on the Nth frame the reader sends, responses and events alike (from 1).

    /// `false-stx[=N]`: line noise holding a false STX whose header declares 272 bytes
    /// (`FF 02 00 07 01 10`) comes right before the Nth frame (default the first), in the
    /// same notification.
    public var falseStartBefore: Int?
    /// `false-stx-split[=N]`: the same noise, split across two notifications (`FF 02 00`,
    /// `07 01 10`), comes right before the Nth frame (default the first).
    public var splitFalseStartBefore: Int?

    /// `drop-in-frame=N`: one notification of the Nth frame (its last) is never sent.
    public var dropInFrame: Int?
    /// `duplicate-in-frame=N`: the first notification of the Nth frame is sent twice.
    public var duplicateInFrame: Int?
    /// `corrupt-frame=N`: the last byte of the Nth frame is inverted.
    public var corruptFrame: Int?
    /// `reorder-frame=N`: the first two notifications of the Nth frame change places (a
    /// frame in one notification changes places with the reader's next notification).
    public var reorderFrame: Int?
    /// `cut-frame=N`: the Nth frame stops after half its bytes; the link stays up.
    public var cutFrame: Int?
    /// `duplicate-frame=N`: the Nth frame is sent twice.
    public var duplicateFrame: Int?

    // Answers.

    /// `late-answer[=N]`: these commands are answered 1.5 s after their documented answer
    /// time (§8), after the host's deadline; a CANCEL that arrives first brings the late
    /// answer out at once, before CANCEL's own (a reader answers in order).
    public var lateAnswer: CommandSelection?
    /// `wrong-code[=N]`: these commands are answered under another command's MAIN and SUB
    /// (ICC STATUS `C2 04`; ICC STATUS itself under GET INFO `C0 01`).
    public var wrongCode: CommandSelection?
    /// `slow-connect=S`: every connection is accepted only after S seconds.
    public var connectDelay: Duration?
    /// `refuse-write[=N]`: every write the host makes (or the Nth, counted over the reader's
    /// life) fails, as a write to a reader that has gone does.
    public var refuseWrite: CommandSelection?
    /// `drop-before-answer[=N]`: instead of answering these commands, the reader drops the
    /// link (`emulator-dropped`).
    public var dropBeforeAnswer: CommandSelection?
    /// `malformed-answer[=N]`: these commands are answered `00` with DATA that does not
    /// decode as their response (one byte, `FF`).
    public var malformedAnswer: CommandSelection?
    /// `reject=MAINSUB:STATUS` (e.g. `reject=C107:07`): the reader answers that command
    /// with that status (hex) instead of executing it.
    public var rejections: [CommandCode: ReaderStatus] = [:]
    /// `card-sw=INS:SW` (e.g. `card-sw=A8:6985`): the chip card answers every command with
    /// that instruction byte with that status word, and no data.
    public var cardStatusWords: [UInt8: StatusWord] = [:]

    // The firmware update (§7). Data blocks count from 1 without wrapping.

    /// `firmware-nak=BLOCK[:TIMES]`: the reader answers `NAK` to the first TIMES attempts
    /// (default 1) at that data block; several steps name several blocks.
    public var firmwareRefusals: [Int: Int] = [:]
    /// `firmware-cancel-at=BLOCK`: the reader aborts the transfer (`CAN CAN`) when that data
    /// block arrives, and keeps its old firmware.
    public var firmwareCancelAtBlock: Int?
    /// `firmware-drop-at=BLOCK`: the link drops when that data block arrives; the old
    /// firmware keeps running.
    public var firmwareDropAtBlock: Int?
    /// `firmware-slow-ack=MILLISECONDS`: every data block is acknowledged this late.
    public var firmwareAckDelay: Duration?
    /// `firmware-corrupt`: the image is damaged in the reader's flash, so its CRC-32 fails
    /// verification after the final block 0 (`CAN CAN`, old firmware kept).
    public var firmwareCorrupt = false
    /// `firmware-no-restart`: after a good update the reader never comes back.
    public var firmwareNoRestart = false
    /// `firmware-keeps-version`: after a good update the reader comes back still reporting
    /// its old version.
    public var firmwareKeepsVersion = false
    /// `firmware-uart=BYTES:RATE`: during a firmware update the reader's radio module passes
    /// what the host writes to its microcontroller over a UART: a receive buffer of BYTES
    /// drained at RATE bytes per second, bytes that arrive while it is full lost (e.g.
    /// `firmware-uart=512:11520`, 115,200 baud).
    public var firmwareUART: SerialLine?

    // Link security (§1.1), for a reader from firmware 3.0.

    /// `not-in-pairing-mode`: the reader's 120 s of pairing mode after power-on are over, so
    /// it refuses to pair with a new host (SMP Pairing Not Supported) until its button is held.
    public var pairingModeAtStart = true
    /// `bond-forgotten`: the reader has forgotten every bond (its button told it to), so a
    /// host that holds one cannot encrypt the link.
    public var bondsForgotten = false
    /// `passkey`: the reader has a display and pairs by Passkey Entry (GET INFO capability
    /// bit 4), whatever its configuration says.
    public var displaysPasskey = false
    /// `wrong-passkey`: every passkey typed is refused (SMP Confirm Value Failed), as if
    /// the person typed it wrong. Implies `passkey`.
    public var refusesPasskeys = false
    /// `pairing-stalls`: the reader never answers a pairing request.
    public var pairingStalls = false

    /// A receive buffer between the radio module and the microcontroller.
    public struct SerialLine: Sendable, Hashable {
        /// The buffer's size in bytes.
        public var capacity: Int
        /// How fast the microcontroller drains it.
        public var bytesPerSecond: Int

        public init(capacity: Int, bytesPerSecond: Int) {
            self.capacity = capacity
            self.bytesPerSecond = bytesPerSecond
        }
    }

    /// The default: nothing unusual.
    public init() {}
}
