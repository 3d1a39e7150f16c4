/// How to pair: how long it may take, and how a passkey is asked for.
public struct PairingRequest: Sendable {
    /// The bound of the whole pairing, passkey entry included: 60 s by default.
    public var timeout: Duration
    /// How long a person has to type the passkey: 45 s by default (BlueZ gives up on an
    /// agent after 60 s).
    public var passkeyTimeLimit: Duration
    /// Asks for the passkey of a reader with a display. Nil: nobody can be asked (a
    /// headless backend), and such a reader fails with ``PairingError/Code/passkeyNeeded``.
    public var passkey: PasskeyEntry?

    /// A request bounded by `timeout`, asking `passkey` (if given) within `passkeyTimeLimit`.
    public init(timeout: Duration = .seconds(60), passkeyTimeLimit: Duration = .seconds(45), passkey: PasskeyEntry? = nil) {
        self.timeout = timeout
        self.passkeyTimeLimit = passkeyTimeLimit
        self.passkey = passkey
    }
}
