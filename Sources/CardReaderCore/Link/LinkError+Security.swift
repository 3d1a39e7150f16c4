/// The link failures of reader documentation §1.1: a reader that needs an encrypted link
/// this host cannot give it.
extension LinkError.Code {
    /// The reader needs an encrypted link (firmware 3.0 or later, or a revision that does not
    /// say) and this host holds no bond with it: pair it first, in pairing mode.
    public static let notPaired = Self(rawValue: "not-paired")
    /// This host holds a bond with the reader but the reader no longer does (it forgot its
    /// bonds, or dropped this host's as its ninth): the link could not be encrypted.
    public static let bondLost = Self(rawValue: "bond-lost")
    /// The reader refused an access to its data service because the link is not encrypted
    /// (ATT error Insufficient Encryption 0x0F or Insufficient Authentication 0x05).
    public static let insufficientEncryption = Self(rawValue: "insufficient-encryption")
}

extension LinkError {
    /// ``Code/notPaired`` for `reader`, with its fix.
    public static func notPaired(_ reader: String) -> LinkError {
        LinkError(
            .notPaired, "\(reader) needs an encrypted link and this host holds no bond with it",
            fix: "put the reader in pairing mode (it is for 120 s after it is switched on, or after its button is held 3 s), "
                + "then pair it: `readerctl pair --reader NAME`, or `pair(_:)` on its connector")
    }

    /// ``Code/bondLost`` for `reader`, with what BlueZ or the emulated reader said, and its fix.
    public static func bondLost(_ reader: String, _ detail: String) -> LinkError {
        LinkError(
            .bondLost, "\(reader) did not accept this host's bond: \(detail)",
            fix: "the reader has forgotten this host: unpair it (`readerctl unpair --reader NAME`), put the reader in "
                + "pairing mode, then pair it again")
    }
}
