import ArgumentParser
import Dispatch
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Turns Ctrl-C (SIGINT), SIGTERM and SIGHUP into Swift task cancellation, so the
/// operation tells the reader (CANCEL, or `CAN CAN` during a firmware transfer) and ends
/// cleanly; readerctl then exits with 128 + the signal's number (130, 143, 129). A second
/// signal exits at once.
///
/// The handlers are installed synchronously and do only what a signal handler may: each
/// writes the signal's number to a pipe, which a dispatch source reads. (A dispatch signal
/// source alone installs its handler asynchronously on Linux, so an early signal could be
/// lost, or end the process.) Install it before starting the work, then hand it the task: a
/// signal that comes before the task exists is remembered and cancels it on arrival.
final class InterruptSignal {
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

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
            guard target.interrupt(by: Int32(byte)) else { exit(128 + Int32(byte)) }
            let again = byte == SIGINT ? "Ctrl-C" : "the signal"
            StandardStreams.writeError("\ncancelling… (\(again) again to quit at once)\n")
        }
        source.resume()
        self.source = source
        for number in Self.signals {
            signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(InterruptSignal.pipeWriteEnd, &byte, 1)
            }
        }
    }

    /// The exit status for work that a signal cancelled: 128 + the signal's number.
    var exitCode: ExitCode { ExitCode(128 + (target.signal ?? SIGINT)) }

    /// The task a Ctrl-C cancels.
    func cancels(_ task: Task<some Sendable, Never>) {
        target.set { task.cancel() }
    }

    deinit {
        for number in Self.signals { signal(number, SIG_DFL) }
        source.cancel()
        close(Self.pipeWriteEnd)
        close(readEnd)
    }

    private final class Target: Sendable {
        private struct State {
            var cancel: (@Sendable () -> Void)?
            var signal: Int32?
        }

        private let state = Locked(State())

        func set(_ cancel: @escaping @Sendable () -> Void) {
            let already = state.withLock { state in
                state.cancel = cancel
                return state.signal != nil
            }
            if already { cancel() }
        }

        /// The first signal received.
        var signal: Int32? { state.withLock { $0.signal } }

        /// Cancels the task; true the first time.
        func interrupt(by signal: Int32) -> Bool {
            let (first, cancel) = state.withLock { state in
                defer { if state.signal == nil { state.signal = signal } }
                return (state.signal == nil, state.cancel)
            }
            if first { cancel?() }
            return first
        }
    }
}
