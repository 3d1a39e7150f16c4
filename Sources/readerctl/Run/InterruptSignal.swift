import ArgumentParser
import Dispatch
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP, for the whole life of readerctl. While a command
/// does work with a reader (``CommandRun``), a signal cancels it, so the operation tells
/// the reader (CANCEL, or `CAN CAN` during a firmware transfer) and ends cleanly; readerctl
/// then exits with 128 + the signal's number (130, 143, 129), and a second signal exits at
/// once. At any other time — parsing the command line, reading a recording to decode,
/// printing — readerctl exits with 128 + the signal's number at once, as the signal's
/// default action would, having told no reader anything.
///
/// The handlers are installed first thing in `main`, before the command line is parsed,
/// and stay: a signal that came before a command's work began was lost when the handlers
/// came with the work and the signal was ignored at start (a script's background job), and
/// `readerctl … & kill -INT $!` then ran on. Each handler does only what a signal handler
/// may: it writes the signal's number to a pipe, which a dispatch source reads. (A dispatch
/// signal source alone installs its handler asynchronously on Linux, so an early signal
/// could be lost.)
///
/// SIGHUP, when ignored at start (under `nohup`), stays ignored. Ctrl-C and SIGTERM are
/// always handled, also when ignored or blocked at start: a shell starts a script's
/// background jobs with SIGINT ignored, a program's worker thread starts its children with
/// every signal blocked, and `kill -INT` must still stop `readerctl emulate &` cleanly.
enum InterruptSignal {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1
    /// Who a signal goes to; see ``Target``.
    private static let target = Target()
    /// The dispatch source that reads the pipe, kept for readerctl's life.
    nonisolated(unsafe) private static var source: (any DispatchSourceRead)?

    /// Installs the handlers, once, before anything else runs.
    static func install() {
        var ends: [Int32] = [-1, -1]
        guard source == nil, pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        pipeWriteEnd = ends[1]
        let source = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: .global())
        source.setEventHandler { [readEnd = ends[0]] in
            var byte: UInt8 = 0
            guard read(readEnd, &byte, 1) == 1 else { return }
            let signal = Int32(byte)
            switch target.interrupt(by: signal) {
            case .cancelled, .remembered:
                let again = signal == SIGINT ? "Ctrl-C" : "the signal"
                StandardStreams.writeError("\ncancelling… (\(again) again to quit at once)\n")
            case .exit:
                exit(128 + signal)
            }
        }
        source.resume()
        Self.source = source
        for number in signals {
            var old = sigaction()
            guard sigaction(number, nil, &old) == 0 else { continue }
            // C function pointers do not compare in Swift: compare the addresses.
            let ignored = unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            guard !(ignored && number == SIGHUP) else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(InterruptSignal.pipeWriteEnd, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            // As signal() sets it: an interrupted write (a log line on stderr) is restarted,
            // not lost to EINTR.
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        // A child inherits the signal mask of the thread that started it, and a program's
        // worker threads (Swift's, dispatch's) block every signal: readerctl started by
        // one, with Foundation's `Process` say, began with these blocked, and a signal then
        // waited, pending, for a thread that took it. This (the main) thread takes them;
        // threads started later inherit that.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in signals { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    }

    /// Starts the work a signal cancels: a signal that arrives while `start` creates the
    /// task is kept for it, and cancels it as soon as it exists. Call ``workEnded()`` once
    /// the task has ended.
    static func cancelling<Success: Sendable>(_ start: () -> Task<Success, Never>) -> Task<Success, Never> {
        target.beginWork()
        let task = start()
        target.set { task.cancel() }
        return task
    }

    /// The work has ended: a signal from now on ends readerctl at once.
    static func workEnded() {
        target.endWork()
    }

    /// The exit status of a command whose work ended cancelled: 128 + the number of the
    /// signal that cancelled it (Ctrl-C 130 when none is known).
    static var cancelledExitCode: ExitCode { ExitCode(128 + (target.firstSignal ?? SIGINT)) }

    /// What a signal does, by when it comes.
    private final class Target: Sendable {
        enum Outcome {
            /// The work's task was cancelled.
            case cancelled
            /// The work is being started; its task is cancelled when it is set.
            case remembered
            /// No work to cancel, or a second signal: readerctl ends.
            case exit
        }

        private enum Phase {
            /// No work: a signal ends readerctl.
            case idle
            /// Work is being started; the signal, if one came, is kept for it.
            case starting
            /// The work's task, cancelled by the first signal.
            case working(cancel: @Sendable () -> Void)
        }

        private struct State {
            var phase = Phase.idle
            /// The first signal that cancelled (or was kept for) work.
            var signal: Int32?
        }

        private let state = Locked(State())

        var firstSignal: Int32? { state.withLock { $0.signal } }

        func beginWork() {
            state.withLock { $0.phase = .starting }
        }

        func set(_ cancel: @escaping @Sendable () -> Void) {
            let already = state.withLock { state in
                state.phase = .working(cancel: cancel)
                return state.signal != nil
            }
            if already { cancel() }
        }

        func endWork() {
            state.withLock { $0.phase = .idle }
        }

        func interrupt(by signal: Int32) -> Outcome {
            let (outcome, cancel) = state.withLock { state -> (Outcome, (@Sendable () -> Void)?) in
                guard state.signal == nil else { return (.exit, nil) }
                switch state.phase {
                case .idle:
                    return (.exit, nil)
                case .starting:
                    state.signal = signal
                    return (.remembered, nil)
                case .working(let cancel):
                    state.signal = signal
                    return (.cancelled, cancel)
                }
            }
            cancel?()
            return outcome
        }
    }
}
