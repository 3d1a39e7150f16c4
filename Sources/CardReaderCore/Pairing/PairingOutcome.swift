/// What ``PairingReaderConnector/pair(_:)`` did.
public enum PairingOutcome: Sendable, Hashable, CustomStringConvertible {
    /// This host and the reader paired and both keep the bond: Just Works (a reader
    /// without a display) or Passkey Entry.
    case paired(PairingMethod)
    /// This host already held a bond with the reader: nothing was done (a reader that has
    /// forgotten it says so at the next connection, with `LinkError.Code.bondLost`).
    case alreadyBonded

    /// `paired (Just Works)`, `paired (Passkey Entry)`, `already bonded`.
    public var description: String {
        switch self {
        case .paired(let method): "paired (\(method))"
        case .alreadyBonded: "already bonded"
        }
    }
}

/// How LE Secure Connections paired (reader documentation §1.1).
public enum PairingMethod: Sendable, Hashable, CustomStringConvertible {
    /// No passkey: a reader without a display.
    case justWorks
    /// The reader displayed six digits that this host's user typed.
    case passkeyEntry

    /// `Just Works` or `Passkey Entry`.
    public var description: String {
        switch self {
        case .justWorks: "Just Works"
        case .passkeyEntry: "Passkey Entry"
        }
    }
}
