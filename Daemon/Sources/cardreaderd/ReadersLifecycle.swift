import CardReaderService
import ServiceLifecycle

/// The readers as a service of the daemon's group: connected at start, and at shutdown
/// (after the servers stopped taking calls) every lease ended, the cards powered off,
/// and the links closed.
struct ReadersLifecycle: Service {
    let readers: HeldReaders

    func run() async throws {
        for reader in readers.all { await reader.start() }
        try? await gracefulShutdown()
        for reader in readers.all { await reader.stop() }
    }
}
