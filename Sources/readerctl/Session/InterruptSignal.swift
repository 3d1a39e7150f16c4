import Dispatch
import Foundation

/// Turns Ctrl-C into Swift task cancellation, so the operation sends CANCEL to the reader
/// and ends cleanly. A second Ctrl-C exits at once.
final class InterruptSignal {
    private let source: any DispatchSourceSignal

    /// Calls `cancel` on the first SIGINT.
    init(cancel: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let interrupted = Interrupted()
        source.setEventHandler {
            if interrupted.mark() {
                FileHandle.standardError.write(Data("\ncancelling… (Ctrl-C again to quit at once)\n".utf8))
                cancel()
            } else {
                exit(130)
            }
        }
        source.resume()
        self.source = source
    }

    deinit {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }

    private final class Interrupted: @unchecked Sendable {
        private let lock = NSLock()
        private var seen = false

        /// True the first time.
        func mark() -> Bool {
            lock.withLock {
                defer { seen = true }
                return !seen
            }
        }
    }
}
