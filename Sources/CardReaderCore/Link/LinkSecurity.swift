/// Whether what crosses the air between this host and the reader is encrypted: what a
/// ``ReaderLink`` knows once it is open, and what decides whether ``CardReader`` runs card
/// operations on it (reader documentation §1.1).
public enum LinkSecurity: Sendable, Hashable, CustomStringConvertible {
    /// Encrypted with the key of a bond between this host and the reader, and proven so:
    /// the reader took an access it grants only on an encrypted link.
    case encrypted
    /// In clear: a reader before firmware 3.0, which does not pair. GET INFO works on it;
    /// card operations only when ``CardReader/Configuration/allowsUnencryptedLink`` says so.
    case unencrypted

    /// `encrypted` or `unencrypted`.
    public var description: String {
        switch self {
        case .encrypted: "encrypted"
        case .unencrypted: "unencrypted"
        }
    }
}
