/// Why pairing with a reader, or deleting its bond, failed: a ``code`` programs decide on,
/// what the transport said, and what a person can do. Never holds a passkey.
///
/// BlueZ reports every refusal of the Security Manager the same way
/// (`org.bluez.Error.AuthenticationFailed`), so the codes below tell them apart by what was
/// asked: a refusal after a passkey was typed is ``Code/wrongPasskey``, one without is
/// ``Code/pairingRefused``.
public struct PairingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public var code: Code
    /// What the transport said, e.g. BlueZ's error name and message.
    public var detail: String
    /// What a person can do about it.
    public var fix: String?
    /// The link's failure, for ``Code/linkFailed``.
    public var link: LinkError?

    /// A failure with `code`, what the transport said, and what to do about it.
    public init(_ code: Code, _ detail: String = "", fix: String? = nil, link: LinkError? = nil) {
        self.code = code
        self.detail = detail
        self.fix = fix ?? code.fix
        self.link = link
    }

    /// The code, then the detail: `pairing-refused: VPOS3356-1A2B refused to pair (…)`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code): \(detail)" }

    /// What happened, as a stable identifier (`pairing-refused`, `wrong-passkey`): what
    /// `readerctl --json` prints as `error`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The reader refused to pair: it is not in pairing mode (SMP Pairing Not Supported).
        public static let pairingRefused = Self(rawValue: "pairing-refused")
        /// The reader refused the passkey typed (SMP Confirm Value Failed): no bond was made.
        public static let wrongPasskey = Self(rawValue: "wrong-passkey")
        /// The reader asks for a passkey and the request has no way to ask a person.
        public static let passkeyNeeded = Self(rawValue: "passkey-needed")
        /// Nobody typed the passkey within the request's time limit.
        public static let passkeyTimedOut = Self(rawValue: "passkey-timed-out")
        /// The person asked for the passkey declined.
        public static let passkeyDeclined = Self(rawValue: "passkey-declined")
        /// The reader runs firmware before 3.0, which does not pair.
        public static let pairingNotSupported = Self(rawValue: "pairing-not-supported")
        /// Pairing did not complete within the request's timeout.
        public static let timedOut = Self(rawValue: "pairing-timed-out")
        /// Another pairing runs on the same adapter (pairings on one adapter go one at a time).
        public static let busy = Self(rawValue: "pairing-busy")
        /// The reader could not be found or reached: ``PairingError/link`` says why.
        public static let linkFailed = Self(rawValue: "pairing-link-failed")
        /// The caller's task was cancelled; the pairing was cancelled and left no bond.
        public static let cancelled = Self(rawValue: "pairing-cancelled")

        /// What a person can do, for the codes where it does not depend on the transport.
        var fix: String? {
            switch self {
            case .pairingRefused:
                "put the reader in pairing mode (it is for 120 s after it is switched on, or after its button is held 3 s), "
                    + "then pair again"
            case .wrongPasskey: "pair again and type the six digits the reader shows"
            case .passkeyNeeded:
                "this reader shows a passkey: give it (`readerctl pair --passkey DIGITS`, or a terminal to prompt on), or "
                    + "pass a passkey callback in PairingRequest"
            case .passkeyTimedOut: "pair again and type the six digits the reader shows sooner"
            case .pairingNotSupported:
                "readers before firmware 3.0 do not pair: update its firmware, or allow unencrypted card operations explicitly"
            case .timedOut: "make sure the reader is switched on, in range and in pairing mode, then pair again"
            case .busy: "wait for the other pairing on this adapter to finish, then pair again"
            default: nil
            }
        }
    }
}
