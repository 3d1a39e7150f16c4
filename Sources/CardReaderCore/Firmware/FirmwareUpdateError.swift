import ReaderProtocol

/// Why a firmware update failed, and what the reader runs now: a ``code`` and the context
/// of the failure. Block numbers count data blocks from 1 without wrapping; block 0 is the
/// header or the final empty block.
///
/// A struct whose codes are static members, as every public error of the SDK is; the
/// static members named like the codes build each failure with what it carries.
public struct FirmwareUpdateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public var code: Code
    /// The data block the transfer was at (0: the header or the end), when it had started.
    public var block: Int? {
        get { context.block }
        set { context.block = newValue }
    }

    /// How many times the reader refused that block, for ``Code/tooManyNAKs``.
    public var attempts: Int? {
        get { context.attempts }
        set { context.attempts = newValue }
    }

    /// How long was waited, for ``Code/noAnswer`` and ``Code/readerDidNotReturn``.
    public var waited: Duration? {
        get { context.waited }
        set { context.waited = newValue }
    }

    /// Why the link dropped, for ``Code/linkLost``.
    public var link: LinkError? {
        get { context.link }
        set { context.link = newValue }
    }

    /// The reader's answer to ENTER FIRMWARE UPDATE, for ``Code/refused``.
    public var readerStatus: ReaderStatus? {
        get { context.readerStatus }
        set { context.readerStatus = newValue }
    }

    /// What is wrong with the image, for ``Code/invalidImage``.
    public var imageProblem: FirmwareImageError? {
        get { context.imageProblem }
        set { context.imageProblem = newValue }
    }

    /// The battery GET INFO reported, for ``Code/batteryTooLow``.
    public var batteryPercent: UInt8? {
        get { context.batteryPercent }
        set { context.batteryPercent = newValue }
    }

    /// The battery an update needs, for ``Code/batteryTooLow``.
    public var requiredBatteryPercent: UInt8? {
        get { context.requiredBatteryPercent }
        set { context.requiredBatteryPercent = newValue }
    }

    /// The version the image carries, for ``Code/wrongVersion``, ``Code/olderImage``,
    /// ``Code/versionsNotComparable``, ``Code/installedUnconfirmed``.
    public var expectedVersion: String? {
        get { context.expectedVersion }
        set { context.expectedVersion = newValue }
    }

    /// The version the reader ran before the update, for ``Code/installedUnconfirmed``.
    public var previousVersion: String? {
        get { context.previousVersion }
        set { context.previousVersion = newValue }
    }

    /// The version the reader came back on, if it said, for ``Code/wrongVersion``; the
    /// version it runs, for ``Code/olderImage`` and ``Code/versionsNotComparable``.
    public var foundVersion: String? {
        get { context.foundVersion }
        set { context.foundVersion = newValue }
    }

    /// The context, behind one reference: see ``Boxed``.
    @Boxed private var context = Context()

    private struct Context: Hashable, Sendable {
        var block: Int?
        var attempts: Int?
        var waited: Duration?
        var link: LinkError?
        var readerStatus: ReaderStatus?
        var imageProblem: FirmwareImageError?
        var batteryPercent: UInt8?
        var requiredBatteryPercent: UInt8?
        var expectedVersion: String?
        var previousVersion: String?
        var foundVersion: String?
    }

    /// A failure with `code` and no context.
    public init(_ code: Code) {
        self.code = code
    }

    /// What failed, as a stable identifier (`firmware-link-lost`): what `readerctl --json`
    /// prints as `error`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The image is not one this reader accepts (damaged, another model…): nothing was sent.
        public static let invalidImage = Self(rawValue: "firmware-image-invalid")
        /// GET INFO reports a battery below what an update needs: nothing was sent.
        public static let batteryTooLow = Self(rawValue: "firmware-battery-too-low")
        /// Neither GET INFO nor the Battery service gave the battery level, and the caller did
        /// not say the reader has none: nothing was sent (an update that runs the battery
        /// flat mid-transfer leaves the reader to start again).
        public static let batteryUnknown = Self(rawValue: "firmware-battery-unknown")
        /// The reader refused ENTER FIRMWARE UPDATE (`07` size, `08` busy, `0B` battery); it
        /// stays on its old firmware.
        public static let refused = Self(rawValue: "firmware-update-refused")
        /// The reader aborted the transfer (`CAN CAN`): 10 failed attempts at a block, no
        /// byte within 10 s, or a size mismatch. Old firmware kept.
        public static let abortedByReader = Self(rawValue: "firmware-aborted-by-reader")
        /// The reader refused (`NAK`) every attempt at a block. Old firmware kept.
        public static let tooManyNAKs = Self(rawValue: "firmware-too-many-naks")
        /// The reader did not answer within the deadline. Old firmware kept.
        public static let noAnswer = Self(rawValue: "firmware-no-answer")
        /// The link dropped during the transfer; the reader still runs its old firmware, and
        /// the update can be started again from the beginning.
        public static let linkLost = Self(rawValue: "firmware-link-lost")
        /// The reader received the whole image and rejected it (`CAN CAN`): old firmware kept.
        public static let verificationFailed = Self(rawValue: "firmware-verification-failed")
        /// The reader accepted the image but did not come back within the deadline after its restart.
        public static let readerDidNotReturn = Self(rawValue: "firmware-reader-did-not-return")
        /// The reader came back reporting another version than the image's.
        public static let wrongVersion = Self(rawValue: "firmware-wrong-version")
        /// The image is older than the reader's firmware
        /// (``FirmwareUpdateOptions/allowsOlderImage`` sends it). Nothing was sent.
        public static let olderImage = Self(rawValue: "firmware-image-older")
        /// The image's version or the reader's does not read as dotted numbers, so which is
        /// newer is unknown (``FirmwareUpdateOptions/allowsIncomparableVersions`` sends it).
        /// Nothing was sent.
        public static let versionsNotComparable = Self(rawValue: "firmware-versions-not-comparable")
        /// The reader verified the whole image and restarts on it, and the update was
        /// cancelled before the reader came back to confirm its version: it runs the image
        /// (``FirmwareUpdateError/expectedVersion``) once restarted, not its old firmware.
        public static let installedUnconfirmed = Self(rawValue: "firmware-installed-unconfirmed")
        /// The reader restarted on its new firmware, which needs an encrypted link this host
        /// cannot give it (``FirmwareUpdateError/link`` says why: `not-paired`, `bond-lost`):
        /// an update from before 3.0 to 3.0 or later. Pair it, then check its version.
        public static let readerNeedsPairing = Self(rawValue: "firmware-reader-needs-pairing")
        /// The image is firmware before 3.0, which does not encrypt, and the link to the
        /// reader is encrypted: installing it would leave a reader this host no longer uses
        /// (it never uses a reader it bonded with unencrypted). Nothing was sent.
        public static let securityDowngrade = Self(rawValue: "firmware-security-downgrade")
        /// The update was cancelled (`CAN CAN` sent); the reader keeps its old firmware and is
        /// usable at once.
        public static let cancelled = Self(rawValue: "firmware-update-cancelled")
    }
}

// MARK: - The failures, with what each code carries

extension FirmwareUpdateError {
    /// The error whose code is ``Code/verificationFailed``, with what it carries.
    public static let verificationFailed = Self(Code.verificationFailed)

    /// The error whose code is ``Code/invalidImage``, with what it carries.
    public static func invalidImage(_ problem: FirmwareImageError) -> Self {
        var error = Self(.invalidImage)
        error.imageProblem = problem
        return error
    }

    /// The error whose code is ``Code/batteryTooLow``, with what it carries.
    public static func batteryTooLow(percent: UInt8, required: UInt8) -> Self {
        var error = Self(.batteryTooLow)
        error.batteryPercent = percent
        error.requiredBatteryPercent = required
        return error
    }

    /// The error whose code is ``Code/batteryUnknown``, with what it carries.
    public static func batteryUnknown(required: UInt8) -> Self {
        var error = Self(.batteryUnknown)
        error.requiredBatteryPercent = required
        return error
    }

    /// The error whose code is ``Code/refused``, with what it carries.
    public static func refused(_ status: ReaderStatus) -> Self {
        var error = Self(.refused)
        error.readerStatus = status
        return error
    }

    /// The error whose code is ``Code/abortedByReader``, with what it carries.
    public static func abortedByReader(block: Int?) -> Self { Self(.abortedByReader, block: block) }

    /// The error whose code is ``Code/tooManyNAKs``, with what it carries.
    public static func tooManyNAKs(block: Int, attempts: Int) -> Self {
        var error = Self(.tooManyNAKs, block: block)
        error.attempts = attempts
        return error
    }

    /// The error whose code is ``Code/noAnswer``, with what it carries.
    public static func noAnswer(block: Int?, after waited: Duration) -> Self {
        var error = Self(.noAnswer, block: block)
        error.waited = waited
        return error
    }

    /// The error whose code is ``Code/linkLost``, with what it carries.
    public static func linkLost(block: Int?, _ link: LinkError) -> Self {
        var error = Self(.linkLost, block: block)
        error.link = link
        return error
    }

    /// The error whose code is ``Code/readerDidNotReturn``, with what it carries.
    public static func readerDidNotReturn(after waited: Duration) -> Self {
        var error = Self(.readerDidNotReturn)
        error.waited = waited
        return error
    }

    /// The error whose code is ``Code/wrongVersion``, with what it carries.
    public static func wrongVersion(expected: String, found: String?) -> Self {
        Self(.wrongVersion, expected: expected, found: found)
    }

    /// The error whose code is ``Code/olderImage``, with what it carries.
    public static func olderImage(imageVersion: String, readerVersion: String) -> Self {
        Self(.olderImage, expected: imageVersion, found: readerVersion)
    }

    /// The error whose code is ``Code/versionsNotComparable``, with what it carries.
    public static func versionsNotComparable(imageVersion: String, readerVersion: String?) -> Self {
        Self(.versionsNotComparable, expected: imageVersion, found: readerVersion)
    }

    /// The error whose code is ``Code/installedUnconfirmed``, with what it carries.
    public static func installedUnconfirmed(version: String, previousVersion: String?) -> Self {
        var error = Self(.installedUnconfirmed)
        error.expectedVersion = version
        error.previousVersion = previousVersion
        return error
    }

    /// The error whose code is ``Code/readerNeedsPairing``, with what it carries.
    public static func readerNeedsPairing(_ link: LinkError) -> Self {
        var error = Self(.readerNeedsPairing)
        error.link = link
        return error
    }

    /// The error whose code is ``Code/securityDowngrade``, with what it carries.
    public static func securityDowngrade(imageVersion: String) -> Self {
        var error = Self(.securityDowngrade)
        error.expectedVersion = imageVersion
        return error
    }

    /// The error whose code is ``Code/cancelled``, with what it carries.
    public static func cancelled(block: Int?) -> Self { Self(.cancelled, block: block) }

    private init(_ code: Code, block: Int?) {
        self.init(code)
        self.block = block
    }

    /// A failure about versions: the image's, and the one the reader reported.
    private init(_ code: Code, expected: String, found: String?) {
        self.init(code)
        self.expectedVersion = expected
        self.foundVersion = found
    }

    init(_ error: YModemError) {
        switch error.code {
        case .abortedByReceiver: self = .abortedByReader(block: error.block)
        case .tooManyNAKs: self = .tooManyNAKs(block: error.block ?? 0, attempts: error.attempts ?? 0)
        case .noAnswer: self = .noAnswer(block: error.block, after: error.waited ?? .zero)
        case .verificationFailed: self = .verificationFailed
        default: self = .cancelled(block: error.block)
        }
    }
}

// MARK: - For a person and for programs

extension FirmwareUpdateError {
    /// What failed, where, and which firmware the reader runs now, e.g.
    /// `the reader refused block 7 10 times (NAK); it keeps its old firmware`.
    public var description: String {
        let at = block.map { " at block \($0)" } ?? ""
        let waitedText = waited.map { "\($0)" } ?? "its deadline"
        switch code {
        case .invalidImage:
            return "the firmware image cannot be used: \(imageProblem.map { "\($0)" } ?? "unknown problem")"
        case .batteryTooLow:
            let percent = batteryPercent.map { "\($0)" } ?? "?"
            let required = requiredBatteryPercent.map { "\($0)" } ?? "?"
            return "the reader's battery is at \(percent) %; a firmware update needs at least \(required) %: charge it"
        case .batteryUnknown:
            return "the reader's battery level is unknown (GET INFO has no level, and the link carries no Battery "
                + "service); a firmware update needs at least \(requiredBatteryPercent.map { "\($0)" } ?? "?") %: charge "
                + "the reader and try again, or, for a reader on mains power without a battery, say so "
                + "(`readerHasNoBattery`, `readerctl update-firmware --no-battery`)"
        case .refused:
            return "the reader refused to enter firmware update mode: status \(readerStatus.map { "\($0)" } ?? "unknown")"
        case .abortedByReader:
            return "the reader aborted the transfer (CAN CAN)\(at); it keeps its old firmware"
        case .tooManyNAKs:
            return "the reader refused block \(block ?? 0) \(attempts ?? 0) times (NAK); it keeps its old firmware"
        case .noAnswer:
            return "the reader did not answer within \(waitedText)\(at); it keeps its old firmware"
        case .linkLost:
            return "the link was lost\(at) (\(link.map { "\($0)" } ?? "no reason given")); the reader still runs its old "
                + "firmware: start the update again"
        case .verificationFailed:
            return "the reader rejected the image after receiving it (verification failed); it keeps its old firmware"
        case .readerDidNotReturn:
            return "the reader accepted the image but did not come back within \(waitedText) of its restart"
        case .wrongVersion:
            return "the reader came back on version \(foundVersion ?? "(unknown)"), not \(expectedVersion ?? "the image's")"
        case .cancelled:
            return "the update was cancelled\(at); the reader keeps its old firmware"
        case .olderImage:
            return "image \(expectedVersion ?? "") is older than the reader's firmware \(foundVersion ?? ""): not sent; "
                + "to install it anyway, allow an older image (`allowsOlderImage`, `readerctl --allow-older`)"
        case .versionsNotComparable:
            return "which is newer is unknown: image \(expectedVersion ?? "") or the reader's firmware "
                + "\(foundVersion ?? "(not reported)") is not a version of dotted numbers; not sent; to install it anyway, "
                + "allow it (`allowsIncomparableVersions`, `readerctl --allow-incomparable-versions`)"
        case .installedUnconfirmed:
            return "the reader verified image \(expectedVersion ?? "") and restarts on it; the update was cancelled before "
                + "the reader came back to confirm its version"
        case .readerNeedsPairing:
            return "the reader restarted on its new firmware, which needs an encrypted link ("
                + "\(link.map { "\($0)" } ?? "no bond")); pair it (in pairing mode), then check its version"
        case .securityDowngrade:
            return "image \(expectedVersion ?? "") is firmware before 3.0, which does not encrypt, and this reader's link is "
                + "encrypted: it is not installed (a reader this host bonded with is never used unencrypted)"
        default:
            return code.rawValue
        }
    }

    /// A stable identifier, e.g. `firmware-verification-failed`: the code's.
    public var identifier: String { code.rawValue }

    /// Whether the reader certainly still runs its old firmware.
    public var oldFirmwareKept: Bool {
        code != .readerDidNotReturn && code != .wrongVersion && code != .readerNeedsPairing && code != .installedUnconfirmed
    }
}
