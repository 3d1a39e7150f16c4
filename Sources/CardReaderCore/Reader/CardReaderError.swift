import ReaderProtocol

/// Why a `CardReader` operation failed: a ``code`` programs decide on, and the context a
/// support engineer needs — the reader's status code, the command, the card's status word,
/// the link's reason, the firmware update's step. Nothing in it is card data.
///
/// A struct whose codes are static members, as every public error of the SDK is: a code
/// added later breaks no `switch` (which has a `default`). Match on ``code``; build one
/// with the static members named like the codes.
///
/// ```swift
/// do {
///     let swipe = try await reader.readMagneticStripe()
/// } catch where error.code == .badSwipe {
///     // ask for another swipe
/// } catch {
///     print(error, error.fix ?? "")
/// }
/// ```
public struct CardReaderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public var code: Code
    /// The command the failure concerns, when there is one.
    public var command: CommandCode? {
        get { context.command }
        set { context.command = newValue }
    }

    /// The reader's status code behind the failure, when the reader answered with one.
    public var readerStatus: ReaderStatus? {
        get { context.readerStatus }
        set { context.readerStatus = newValue }
    }

    /// The link's reason: it could not open, dropped, or refused a write.
    public var link: LinkError? {
        get { context.link }
        set { context.link = newValue }
    }

    /// The card's status word, when the card refused an EMV step.
    public var statusWord: StatusWord? {
        get { context.statusWord }
        set { context.statusWord = newValue }
    }

    /// The firmware update's failure: at which step, and what the reader runs now.
    public var firmwareUpdate: FirmwareUpdateError? {
        get { context.firmwareUpdate }
        set { context.firmwareUpdate = newValue }
    }

    /// The reader a connection was for, e.g. `VPOS3356-1A2B on hci1`.
    public var reader: String? {
        get { context.reader }
        set { context.reader = newValue }
    }

    /// How long was waited, for a timeout.
    public var waited: Duration? {
        get { context.waited }
        set { context.waited = newValue }
    }

    /// The answer that did not decode, for ``Code/malformedResponse``.
    public var decoding: MessageDecodingError? {
        get { context.decoding }
        set { context.decoding = newValue }
    }

    /// The command whose code an answer came under while ``command`` went unanswered, for
    /// ``Code/readerTimedOut``: an answer to an earlier command, or a reader that mixed up
    /// the code.
    public var answeredInstead: CommandCode? {
        get { context.answeredInstead }
        set { context.answeredInstead = newValue }
    }

    /// Where the firmware update that holds the reader is, for ``Code/updating``.
    public var updateProgress: FirmwareUpdateProgress? {
        get { context.updateProgress }
        set { context.updateProgress = newValue }
    }

    /// How long until the reader is expected to take commands again: the update's
    /// estimated time left (``Code/updating``), the time until an announced reset
    /// (``Code/resetting``); nil when unknown.
    public var timeLeft: Duration? {
        get { context.timeLeft }
        set { context.timeLeft = newValue }
    }

    /// In words: the request's problem, the EMV step refused, what the card's data lacks.
    public var detail: String? {
        get { context.detail }
        set { context.detail = newValue }
    }

    /// The context, behind one reference: see ``Boxed``.
    @Boxed private var context = Context()

    private struct Context: Hashable, Sendable {
        var command: CommandCode?
        var readerStatus: ReaderStatus?
        var link: LinkError?
        var statusWord: StatusWord?
        var firmwareUpdate: FirmwareUpdateError?
        var reader: String?
        var waited: Duration?
        var decoding: MessageDecodingError?
        var answeredInstead: CommandCode?
        var updateProgress: FirmwareUpdateProgress?
        var timeLeft: Duration?
        var detail: String?
    }

    /// An error with `code` and no context; the static members below add what each code carries.
    public init(_ code: Code) {
        self.code = code
    }

    /// What happened, as a stable identifier (`bad-swipe`, `link-lost`): what `readerctl
    /// --json` prints as `error` (for a firmware update, the update's own identifier).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The operation needs a connection; call `connect()` first.
        public static let notConnected = Self(rawValue: "not-connected")
        /// No link to the reader within the connection deadline.
        public static let connectionTimedOut = Self(rawValue: "connection-timed-out")
        /// The transport could not open a link.
        public static let connectionFailed = Self(rawValue: "connection-failed")
        /// The link dropped (reader out of range, switched off, reset, bluetoothd restarted…).
        public static let linkLost = Self(rawValue: "link-lost")
        /// A packet could not be written to the reader.
        public static let writeFailed = Self(rawValue: "write-failed")
        /// The reader did not answer a command within its deadline.
        public static let readerTimedOut = Self(rawValue: "reader-timed-out")
        /// After an earlier command timed out or was cancelled, the reader answered neither
        /// it nor CANCEL: the reader cannot tell its answers apart any more. Reconnect.
        public static let readerNotResponding = Self(rawValue: "reader-not-responding")
        /// The caller's task was cancelled; the reader was sent CANCEL.
        public static let cancelled = Self(rawValue: "cancelled")
        /// Status `01`: nobody swiped or inserted a card in time.
        public static let cardholderTimeout = Self(rawValue: "cardholder-timeout")
        /// Status `03`: the swipe yielded no decodable track.
        public static let badSwipe = Self(rawValue: "bad-swipe")
        /// Status `04`: no card in the chip slot.
        public static let noCard = Self(rawValue: "no-card")
        /// Status `05`: the card was removed during the operation.
        public static let cardRemoved = Self(rawValue: "card-removed")
        /// Status `08`: the reader is busy with another command (another host?).
        public static let readerBusy = Self(rawValue: "reader-busy")
        /// Status `0B`: the battery is too low for this operation.
        public static let batteryTooLow = Self(rawValue: "battery-too-low")
        /// Status `09`: the chip card did not answer (no ATR, parity or protocol error).
        public static let cardNotResponding = Self(rawValue: "card-not-responding")
        /// Status `0A`: the card must be powered on first.
        public static let cardNotPowered = Self(rawValue: "card-not-powered")
        /// Any other status: unknown command (`06`), invalid parameter (`07`), a reserved code, or
        /// `02` (cancelled) when this host did not cancel the command.
        public static let readerRejected = Self(rawValue: "reader-rejected")
        /// The reader's answer did not decode as the command's response.
        public static let malformedResponse = Self(rawValue: "malformed-response")
        /// The request cannot be sent to this reader, e.g. an extended-length APDU.
        public static let invalidRequest = Self(rawValue: "invalid-request")
        /// The card answered an EMV step with an error status word.
        public static let cardRefused = Self(rawValue: "card-refused")
        /// The card's EMV data lacks or garbles something the read needs.
        public static let invalidCardData = Self(rawValue: "invalid-card-data")
        /// A firmware update failed; ``CardReaderError/firmwareUpdate`` says at which step.
        public static let firmwareUpdateFailed = Self(rawValue: "firmware-update-failed")
        /// A card operation was refused because the link is not encrypted (a reader before
        /// firmware 3.0) and the configuration does not allow that. Nothing was sent.
        public static let linkNotEncrypted = Self(rawValue: "link-not-encrypted")
        /// A firmware update holds the reader; the command was not sent.
        /// ``CardReaderError/updateProgress`` says where the update is.
        public static let updating = Self(rawValue: "reader-updating")
        /// The reader announced its scheduled reset (event `E0 04`) and the command could not
        /// end before it, nor wait for the reader's return within its deadline. Nothing was sent.
        public static let resetting = Self(rawValue: "reader-resetting")
        /// The command waited its whole deadline for a command before it to end (a swipe
        /// the cardholder is taking long over) and was not sent.
        public static let queueTimedOut = Self(rawValue: "queue-timed-out")
    }
}

// MARK: - The errors, with what each code carries

extension CardReaderError {
    /// The error whose code is ``Code/notConnected``, with what it carries.
    public static let notConnected = Self(Code.notConnected)
    /// The error whose code is ``Code/readerNotResponding``, with what it carries.
    public static let readerNotResponding = Self(Code.readerNotResponding)
    /// The error whose code is ``Code/cancelled``, with what it carries.
    public static let cancelled = Self(.cancelled, status: .cancelled)
    /// The error whose code is ``Code/badSwipe``, with what it carries.
    public static let badSwipe = Self(.badSwipe, status: .unreadableStripe)
    /// The error whose code is ``Code/noCard``, with what it carries.
    public static let noCard = Self(.noCard, status: .noCard)
    /// The error whose code is ``Code/cardRemoved``, with what it carries.
    public static let cardRemoved = Self(.cardRemoved, status: .cardRemoved)
    /// The error whose code is ``Code/cardNotResponding``, with what it carries.
    public static let cardNotResponding = Self(.cardNotResponding, status: .cardNotResponding)
    /// The error whose code is ``Code/cardNotPowered``, with what it carries.
    public static let cardNotPowered = Self(.cardNotPowered, status: .cardNotPowered)

    /// The error whose code is ``Code/connectionTimedOut``, with what it carries.
    public static func connectionTimedOut(reader: String, after waited: Duration) -> Self {
        var error = Self(.connectionTimedOut)
        error.reader = reader
        error.waited = waited
        return error
    }

    /// The error whose code is ``Code/connectionFailed``, with what it carries.
    public static func connectionFailed(reader: String, _ link: LinkError) -> Self {
        var error = Self(.connectionFailed)
        error.reader = reader
        error.link = link
        return error
    }

    /// The error whose code is ``Code/linkLost``, with what it carries.
    public static func linkLost(_ link: LinkError) -> Self {
        var error = Self(.linkLost)
        error.link = link
        return error
    }

    /// The error whose code is ``Code/writeFailed``, with what it carries.
    public static func writeFailed(_ link: LinkError) -> Self {
        var error = Self(.writeFailed)
        error.link = link
        return error
    }

    /// The error whose code is ``Code/readerTimedOut``, with what it carries.
    public static func readerTimedOut(_ command: CommandCode, after waited: Duration, answeredInstead: CommandCode? = nil) -> Self {
        var error = Self(.readerTimedOut, command: command)
        error.waited = waited
        error.answeredInstead = answeredInstead
        return error
    }

    /// The error whose code is ``Code/cardholderTimeout``, with what it carries.
    public static func cardholderTimeout(_ command: CommandCode) -> Self {
        Self(.cardholderTimeout, command: command, status: .cardholderTimeout)
    }

    /// The error whose code is ``Code/readerBusy``, with what it carries.
    public static func readerBusy(_ command: CommandCode) -> Self { Self(.readerBusy, command: command, status: .busy) }

    /// The error whose code is ``Code/batteryTooLow``, with what it carries.
    public static func batteryTooLow(_ command: CommandCode) -> Self {
        Self(.batteryTooLow, command: command, status: .batteryTooLow)
    }

    /// The error whose code is ``Code/readerRejected``, with what it carries.
    public static func readerRejected(_ command: CommandCode, _ status: ReaderStatus) -> Self {
        Self(.readerRejected, command: command, status: status)
    }

    /// The error whose code is ``Code/malformedResponse``, with what it carries.
    public static func malformedResponse(_ command: CommandCode, _ decoding: MessageDecodingError) -> Self {
        var error = Self(.malformedResponse, command: command)
        error.decoding = decoding
        return error
    }

    /// The error whose code is ``Code/invalidRequest``, with what it carries.
    public static func invalidRequest(_ problem: String) -> Self {
        var error = Self(.invalidRequest)
        error.detail = problem
        return error
    }

    /// The error whose code is ``Code/cardRefused``, with what it carries.
    public static func cardRefused(step: String, _ statusWord: StatusWord) -> Self {
        var error = Self(.cardRefused)
        error.detail = step
        error.statusWord = statusWord
        return error
    }

    /// The error whose code is ``Code/invalidCardData``, with what it carries.
    public static func invalidCardData(_ problem: String) -> Self {
        var error = Self(.invalidCardData)
        error.detail = problem
        return error
    }

    /// The error whose code is ``Code/firmwareUpdateFailed``, with what it carries.
    public static func firmwareUpdateFailed(_ failure: FirmwareUpdateError) -> Self {
        var error = Self(.firmwareUpdateFailed)
        error.firmwareUpdate = failure
        if failure.code == .refused { error.readerStatus = failure.readerStatus }
        return error
    }

    /// The error whose code is ``Code/linkNotEncrypted``, with what it carries.
    public static func linkNotEncrypted(_ command: CommandCode, reader: String) -> Self {
        var error = Self(.linkNotEncrypted, command: command)
        error.reader = reader
        return error
    }

    /// The error whose code is ``Code/updating``, with what it carries.
    public static func updating(_ progress: FirmwareUpdateProgress, command: CommandCode? = nil) -> Self {
        var error = Self(.updating)
        error.command = command
        error.updateProgress = progress
        error.timeLeft = progress.estimatedTimeRemaining
        return error
    }

    /// The error whose code is ``Code/resetting``, with what it carries: the time until the
    /// announced reset, nil once it is under way.
    public static func resetting(_ command: CommandCode? = nil, timeLeft: Duration?) -> Self {
        var error = Self(.resetting)
        error.command = command
        error.timeLeft = timeLeft
        return error
    }

    /// The error whose code is ``Code/queueTimedOut``, with what it carries.
    public static func queueTimedOut(_ command: CommandCode?, after waited: Duration) -> Self {
        var error = Self(.queueTimedOut)
        error.command = command
        error.waited = waited
        return error
    }

    private init(_ code: Code, command: CommandCode? = nil, status: ReaderStatus?) {
        self.init(code)
        self.command = command
        readerStatus = status
    }

    private init(_ code: Code, command: CommandCode) {
        self.init(code)
        self.command = command
    }

    /// Maps a failure status of `command`'s response to its error. 02 answers this host's
    /// CANCEL, which it sends only for a task that was cancelled; unasked, it is the reader
    /// refusing the command, not a cancellation (which a command line reports as Ctrl-C).
    static func status(_ status: ReaderStatus, of command: CommandCode) -> CardReaderError {
        switch status {
        case .cardholderTimeout: .cardholderTimeout(command)
        case .cancelled: Task.isCancelled ? .cancelled : .readerRejected(command, status)
        case .unreadableStripe: .badSwipe
        case .noCard: .noCard
        case .cardRemoved: .cardRemoved
        case .busy: .readerBusy(command)
        case .batteryTooLow: .batteryTooLow(command)
        case .cardNotResponding: .cardNotResponding
        case .cardNotPowered: .cardNotPowered
        case .success, .unknownCommand, .invalidParameter, .reserved: .readerRejected(command, status)
        }
    }
}

// MARK: - For a person and for programs

extension CardReaderError {
    /// What went wrong and, where there is one, what to do, e.g.
    /// `the card could not be read; swipe again`; never card data.
    public var description: String {
        let commandName = command.map { $0.commandName ?? "\($0)" } ?? "the command"
        let waitedText = waited.map { "\($0)" } ?? "its deadline"
        switch code {
        case .notConnected: return "not connected to a reader"
        case .connectionTimedOut: return "could not connect to \(reader ?? "the reader") within \(waitedText)"
        case .connectionFailed: return "could not connect to \(reader ?? "the reader"): \(linkText)"
        case .linkLost: return "the link to the reader was lost (\(linkText))"
        case .writeFailed: return "could not write to the reader: \(linkText)"
        case .readerTimedOut:
            guard let other = answeredInstead else { return "the reader did not answer \(commandName) within \(waitedText)" }
            return "the reader did not answer \(commandName) within \(waitedText); it answered under the code of "
                + "\(other.commandName ?? "another command") (\(other)) instead, which this host was not waiting for"
        case .readerNotResponding: return "the reader answers neither the timed-out command nor CANCEL; reconnect"
        case .cancelled: return "cancelled"
        case .cardholderTimeout:
            return command == .readMagneticStripe ? "no card was swiped in time" : "no card was inserted in time"
        case .badSwipe: return "the card could not be read; swipe again"
        case .noCard: return "no card in the chip slot"
        case .cardRemoved: return "the card was removed during the operation"
        case .readerBusy: return "the reader is busy and refused \(commandName) (status 08)"
        case .batteryTooLow: return "the reader's battery is too low for \(commandName) (status 0B); charge it"
        case .cardNotResponding: return "the chip card did not answer (status 09); reinsert it"
        case .cardNotPowered: return "the chip card is not powered (status 0A); power it on first"
        case .readerRejected where readerStatus == .cancelled:
            return "the reader ended \(commandName) with status 0x02 (cancelled by the host), though this host did not cancel it"
        case .readerRejected: return "the reader refused \(commandName): status \(readerStatus.map { "\($0)" } ?? "unknown")"
        case .malformedResponse:
            return "the reader's answer to \(commandName) is malformed: \(decoding.map { "\($0)" } ?? "it does not decode")"
        case .invalidRequest: return "invalid request: \(detail ?? "not one this reader takes")"
        case .cardRefused:
            return "the card refused \(detail ?? "the step"): SW \(statusWord.map { "\($0)" } ?? "unknown")"
        case .invalidCardData: return "the card's data is invalid: \(detail ?? "unreadable")"
        case .firmwareUpdateFailed: return "firmware update failed: \(firmwareUpdate.map { "\($0)" } ?? "unknown step")"
        case .linkNotEncrypted:
            return "\(commandName) refused: the link to \(reader ?? "the reader") is not encrypted, so card data would cross the air in clear"
        case .updating:
            return "\(commandName) not sent: a firmware update holds the reader"
                + (updateProgress.map { " (\($0))" } ?? "")
        case .resetting:
            let when = timeLeft.map { "resets in \(Int($0.components.seconds)) s" } ?? "is resetting"
            return "\(commandName) not sent: the reader \(when), as it announced, and was not back within the command's deadline"
        case .queueTimedOut:
            return "\(commandName) not sent: the command before it was still running after \(waitedText)"
        default: return [code.rawValue, detail].compactMap(\.self).joined(separator: ": ")
        }
    }

    private var linkText: String { link.map { "\($0)" } ?? "no reason given" }

    /// What a person can do about it: for a link that could not open or was lost, the
    /// link's `LinkError.fix` (start bluetoothd, power the adapter on, the bus's policy, …);
    /// for a busy or silent reader, a bad swipe, an empty slot, a card removed too soon or a
    /// cardholder who did not act, the next step. Nil where the description says it all
    /// (`charge it`) or nobody can act (a card's refusal).
    public var fix: String? {
        switch code {
        case .readerBusy:
            "the reader is serving another command (another host's, or a firmware update): try again when it is done"
        case .readerTimedOut where answeredInstead != nil:
            "the reader answered a command it was not sent (a late answer to one cancelled earlier, or firmware that "
                + "mixed up the code): try again; if it repeats, update the reader's firmware (`readerctl --verbose` "
                + "shows every frame)"
        case .readerTimedOut:
            "make sure the reader is on and in range; `readerctl doctor --reader NAME` checks each step up to its answer"
        case .badSwipe:
            "swipe in one steady movement, the stripe facing the reader's head; a card that fails again may have a "
                + "worn stripe: insert its chip instead"
        case .cardRemoved:
            "leave the card in the slot until the operation ends, then insert it and start again"
        case .noCard:
            "insert a chip card, or wait for one (`powerOnCard(waitingForInsertion:)`, `readerctl power-on|apdu|emv --wait SECONDS`)"
        case .cardholderTimeout where command == .readMagneticStripe:
            "swipe within the time given, or give more (`readMagneticStripe(timeout:)`, `readerctl swipe --timeout SECONDS`)"
        case .cardholderTimeout:
            "insert the card within the time given, or give more (`powerOnCard(waitingForInsertion:)`, `readerctl power-on|apdu|emv --wait SECONDS`)"
        case .connectionFailed, .linkLost, .writeFailed:
            link?.fix
        case .connectionTimedOut:
            "make sure the reader is switched on, charged, in range and not connected to another host; "
                + "a longer connect timeout helps a reader that advertises slowly; `readerctl doctor --reader NAME` "
                + "checks each step from the system bus to the reader's answer"
        case .readerNotResponding:
            "disconnect and connect again"
        case .updating:
            "wait for the update to end (`waitUntilReady(timeout:)`, `readerctl status --watch`): the reader restarts "
                + "on its new firmware and takes commands again"
        case .resetting:
            "try again in a moment: the reader restarts after its daily reset and the lane reconnects by itself"
        case .queueTimedOut:
            "try again when the running command ends, or give the command that waits a longer deadline"
        case .linkNotEncrypted:
            "only a reader before firmware 3.0 gives an unencrypted link: update its firmware to 3.0 or later and pair it, "
                + "or allow card operations on it explicitly (`allowsUnencryptedLink` in the reader's configuration, "
                + "`readerctl --allow-unencrypted`)"
        default:
            nil
        }
    }

    /// A stable identifier of what happened, e.g. `cardholder-timeout`, `link-lost`: the
    /// code, or for a firmware update the update's own (`firmware-link-lost`). What
    /// `readerctl --json` prints as `error`.
    public var identifier: String { firmwareUpdate?.identifier ?? code.rawValue }
}
