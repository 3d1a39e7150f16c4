import Dispatch
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Turns Ctrl-C into Swift task cancellation, so the operation sends CANCEL to the reader
/// and ends cleanly. A second Ctrl-C exits at once.
///
/// The SIGINT handler is installed synchronously and does only what a signal handler may:
/// it writes a byte to a pipe, which a dispatch source reads. (A dispatch signal source
/// alone installs its handler asynchronously on Linux, so an early Ctrl-C could be lost.)
/// Install it before starting the work, then hand it the task: a Ctrl-C that comes before
/// the task exists is remembered and cancels it on arrival.
final class InterruptSignal {
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    private let source: any DispatchSourceRead
    private let target = Target()
    private let readEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        readEnd = ends[0]
        Self.pipeWriteEnd = ends[1]
        let source = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: .global())
        let target = target
        source.setEventHandler { [readEnd = ends[0]] in
            var byte: UInt8 = 0
            guard read(readEnd, &byte, 1) == 1 else { return }
            guard target.interrupt() else { exit(130) }
            StandardStreams.writeError("\ncancelling… (Ctrl-C again to quit at once)\n")
        }
        source.resume()
        self.source = source
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(InterruptSignal.pipeWriteEnd, &byte, 1)
        }
    }

    /// The task a Ctrl-C cancels.
    func cancels(_ task: Task<some Sendable, Never>) {
        target.set { task.cancel() }
    }

    deinit {
        signal(SIGINT, SIG_DFL)
        source.cancel()
        close(Self.pipeWriteEnd)
        close(readEnd)
    }

    private final class Target: Sendable {
        private struct State {
            var cancel: (@Sendable () -> Void)?
            var interrupted = false
        }

        private let state = Locked(State())

        func set(_ cancel: @escaping @Sendable () -> Void) {
            let already = state.withLock { state in
                state.cancel = cancel
                return state.interrupted
            }
            if already { cancel() }
        }

        /// Cancels the task; true the first time.
        func interrupt() -> Bool {
            let (first, cancel) = state.withLock { state in
                defer { state.interrupted = true }
                return (!state.interrupted, state.cancel)
            }
            if first { cancel?() }
            return first
        }
    }
}
