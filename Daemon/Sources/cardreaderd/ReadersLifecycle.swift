import CardReaderService
import Logging
import ServiceLifecycle

/// The readers as a service of the daemon's group: connected at start, and at shutdown
/// (after the servers stopped taking calls) every lease ended, the cards powered off,
/// and the links closed. It says `serving` once the group traps SIGTERM and SIGINT (before
/// any service runs): from that line on, a signal stops the daemon gracefully.
struct ReadersLifecycle: Service {
    let readers: HeldReaders
    let socketPath: String
    let logger: Logger

    func run() async throws {
        for reader in readers.all { await reader.start() }
        logger.notice("serving", metadata: ["socket": "\(socketPath)", "readers": "\(readers.all.map(\.name).joined(separator: ", "))"])
        try? await gracefulShutdown()
        for reader in readers.all { await reader.stop() }
    }
}
