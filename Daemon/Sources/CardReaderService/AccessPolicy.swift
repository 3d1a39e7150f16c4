/// Who may use the daemon, and who may have card data unmasked: principals (user names,
/// or TLS clients' certificate subjects) from the configuration. Everyone else is refused
/// at connection.
package struct AccessPolicy: Sendable, Hashable {
    /// Who may call at all.
    package var allowed: Set<String>
    /// Who may also ask for unmasked card data (a revealed swipe, an unmasked EMV read) and
    /// send APDUs (whose raw bytes an EMV kernel needs).
    package var revealing: Set<String>

    package init(allowed: Set<String>, revealing: Set<String> = []) {
        self.allowed = allowed.union(revealing)
        self.revealing = revealing
    }

    package func allows(_ principal: String) -> Bool { allowed.contains(principal) }
    package func allowsReveal(to caller: Caller) -> Bool { revealing.contains(caller.principal) }
}
