import Foundation

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
            FileHandle.standardError.write(Data("\(message) (\(seconds) s)\n".utf8))
            return Task {}
        }
        return Task {
            for left in stride(from: seconds, through: 1, by: -1) {
                FileHandle.standardError.write(Data("\r\(message) \(left) s left \u{1B}[K".utf8))
                guard (try? await Task.sleep(for: .seconds(1))) != nil else { break }
            }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }
}
