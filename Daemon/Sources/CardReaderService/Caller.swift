/// Who is calling: a user of this host, as the kernel says at connection (`SO_PEERCRED`),
/// or a TLS client, as its certificate says.
package struct Caller: Sendable, Hashable, CustomStringConvertible {
    package enum Identity: Sendable, Hashable {
        /// A local user: its name (its uid when the name is unknown), uid and process.
        case localUser(name: String, uid: UInt32, processID: Int32)
        /// A TLS client: its certificate's subject, e.g. `CN=backend,O=Shop`.
        case certificate(subject: String)
    }

    package var identity: Identity

    package init(identity: Identity) {
        self.identity = identity
    }

    /// The name the daemon's user lists hold: the user's name, or the certificate's subject.
    package var principal: String {
        switch identity {
        case .localUser(let name, _, _): name
        case .certificate(let subject): subject
        }
    }

    /// E.g. `user pos (uid 1001, pid 4242)`, `client CN=backend`.
    package var description: String {
        switch identity {
        case .localUser(let name, let uid, let processID): "user \(name) (uid \(uid), pid \(processID))"
        case .certificate(let subject): "client \(subject)"
        }
    }
}
