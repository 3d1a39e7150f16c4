/// What a passkey callback is asked: the reader that displays the digits, and how long the
/// pairing waits for them.
public struct PasskeyPrompt: Sendable, Hashable {
    /// The reader showing the passkey, e.g. `VPOS3356-1A2B on hci1`.
    public var reader: String
    /// How long the pairing waits for the answer; after that it fails with
    /// ``PairingError/Code/passkeyTimedOut``.
    public var timeLimit: Duration

    /// A prompt for `reader`, answered within `timeLimit`.
    public init(reader: String, timeLimit: Duration) {
        self.reader = reader
        self.timeLimit = timeLimit
    }
}

/// Asks a person for the passkey a reader displays: returns the digits typed, or nil when
/// the person declines (the pairing fails with ``PairingError/Code/passkeyDeclined``).
public typealias PasskeyEntry = @Sendable (PasskeyPrompt) async -> Passkey?
