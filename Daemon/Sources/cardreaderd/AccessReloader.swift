import CardReaderService
import Logging
import ServiceLifecycle
import UnixSignals

/// Re-reads the configuration file's `users` and `reveal` on SIGHUP (`systemctl reload
/// cardreaderd`) and puts them in force for the calls that start after, without touching
/// the readers: a lane's link stays up. A file that no longer parses changes nothing; a
/// daemon started without one says so (SIGHUP never stops it).
struct AccessReloader: Service {
    let file: String?
    let access: AccessControl
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            guard let file else {
                logger.notice("SIGHUP: no configuration file to re-read (started without --config)")
                continue
            }
            do {
                let configuration = try DaemonConfiguration.load(from: file)
                let policy = Daemon.policy(of: configuration)
                let before = access.policy
                access.replace(with: policy)
                logger.notice(
                    "users and reveal list re-read", metadata: [
                        "file": "\(file)", "users": "\(policy.allowed.sorted().joined(separator: ", "))",
                        "reveal": "\(policy.revealing.sorted().joined(separator: ", "))",
                        "changed": "\(before != policy)",
                    ])
            } catch {
                logger.error("could not re-read the configuration; the users and reveal list stay as they were", metadata: ["file": "\(file)", "error": "\(error)"])
            }
        }
    }
}
