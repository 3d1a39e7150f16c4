#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// "Swipe a card… 27 s left" on standard error, counting down once a second on a terminal;
/// a single line when standard error is not a terminal.
struct CountdownPrompt {
    let message: String
    let limit: Duration

    /// Shows the prompt until the returned task is cancelled.
    func start() -> Task<Void, Never> {
        let message = message
        let seconds = Int(limit.components.seconds)
        guard isatty(STDERR_FILENO) == 1 else {
            StandardStreams.writeError("\(message) (\(seconds) s)\n")
            return Task {}
        }
        return Task {
            for left in stride(from: seconds, through: 1, by: -1) {
                StandardStreams.writeError("\r\(message) \(left) s left \u{1B}[K")
                guard (try? await Task.sleep(for: .seconds(1))) != nil else { break }
            }
            StandardStreams.writeError("\r\u{1B}[K")
        }
    }
}
