/// What a connector decides before it touches the reader's data service (reader
/// documentation §1.1), from what it can learn on an unencrypted link: the firmware
/// revision the reader's Device Information gives, and whether this host holds a bond
/// with it. Every transport decides the same way:
///
/// - a reader this host bonded with is used encrypted, whatever its revision says (no
///   downgrade);
/// - a reader from firmware 3.0 that this host holds no bond with is not used: it must be
///   paired first, in pairing mode;
/// - a revision that is missing or does not read as a version is taken as 3.0 or later;
/// - only a reader that says it runs firmware before 3.0, and was never bonded, is opened
///   unencrypted. ``CardReader`` then runs card operations on it only when allowed.
public enum LinkSecurityPolicy {
    /// How to open the link.
    public enum Decision: Sendable, Hashable {
        /// Encrypt with the bond's key before the data service is touched. The reader's
        /// answer to the first access proves it still holds the bond.
        case encryptWithBond
        /// Open it unencrypted: a reader before firmware 3.0, never bonded.
        case openUnencrypted
        /// Do not open it: the reader needs an encrypted link and this host holds no bond.
        case needsPairing
    }

    /// The decision for a reader whose Device Information gives `firmwareRevision` (nil:
    /// missing or unreadable), when this host holds a bond with it or not.
    public static func decide(firmwareRevision: String?, hostHoldsBond: Bool) -> Decision {
        if hostHoldsBond { return .encryptWithBond }
        return requiresEncryption(firmwareRevision: firmwareRevision) ? .needsPairing : .openUnencrypted
    }

    /// Whether a reader with this firmware revision protects its data service: true from
    /// 3.0, and for a revision that is missing or does not begin with a version number
    /// (`2.4.1`, `v2.4`, `02.10` are before 3.0; `3.0.0`, `10.1`, `beta`, nil are not).
    public static func requiresEncryption(firmwareRevision: String?) -> Bool {
        guard let major = majorVersion(of: firmwareRevision) else { return true }
        return major >= 3
    }

    /// The leading number of a revision (`2` of `2.4.1`, of `v2.4`), with at most 4 digits;
    /// nil when there is none.
    static func majorVersion(of revision: String?) -> Int? {
        guard let revision else { return nil }
        var text = revision.drop { $0.isWhitespace }
        if text.first == "v" || text.first == "V" { text = text.dropFirst() }
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 4 else { return nil }
        let rest = text.dropFirst(digits.count)
        guard rest.isEmpty || rest.first == "." || rest.first == "-" || rest.first == " " else { return nil }
        return Int(digits)
    }
}
