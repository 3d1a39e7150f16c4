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
///
/// SIGHUP, when ignored at start (under `nohup`), stays ignored. Ctrl-C and SIGTERM are
/// always handled: a shell starts a script's background jobs with SIGINT ignored, and
/// `kill -INT` must still stop `readerctl emulate &` cleanly. Each signal's earlier
/// handling is put back afterwards.
final class InterruptSignal {
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// The first signal that cancelled work, for the exit status (see ``cancelledExitCode``).
    private static let received = Locked<Int32?>(nil)

    private let source: any DispatchSourceRead
    private let target = Target()
    private let readEnd: Int32
    /// How each handled signal was set up before, to be put back.
    private var previous: [(Int32, sigaction)] = []

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
            InterruptSignal.received.withLock { if $0 == nil { $0 = Int32(byte) } }
            let again = byte == SIGINT ? "Ctrl-C" : "the signal"
            StandardStreams.writeError("\ncancelling… (\(again) again to quit at once)\n")
        }
        source.resume()
        self.source = source
        for number in Self.signals {
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
            if sigaction(number, &action, nil) == 0 { previous.append((number, old)) }
        }
    }

    /// The exit status of a command whose work ended cancelled: 128 + the number of the
    /// signal that cancelled it (Ctrl-C 130 when none is known).
    static var cancelledExitCode: ExitCode { ExitCode(128 + (received.withLock { $0 } ?? SIGINT)) }

    /// The task a Ctrl-C cancels.
    func cancels(_ task: Task<some Sendable, Never>) {
        target.set { task.cancel() }
    }

    deinit {
        for (number, old) in previous {
            var old = old
            sigaction(number, &old, nil)
        }
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
