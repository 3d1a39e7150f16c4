import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `readerctl emulate`: SIGUSR1 holds the emulated reader's pairing button, as a person
/// holds a real reader's for 3 s (reader documentation §1.1: pairing mode for 120 s).
///
/// As for ``InterruptSignal``, the handler is installed synchronously and only writes a
/// byte to a pipe that a dispatch source reads: a SIGUSR1 that arrives early is neither
/// lost nor fatal (its default action ends the process).
final class PairingButtonSignal {
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    private let source: any DispatchSourceRead
    private let readEnd: Int32

    /// Calls `press` on every SIGUSR1, on a dispatch queue.
    init(press: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        readEnd = ends[0]
        Self.pipeWriteEnd = ends[1]
        let source = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: .global())
        source.setEventHandler { [readEnd = ends[0]] in
            var byte: UInt8 = 0
            guard read(readEnd, &byte, 1) == 1 else { return }
            press()
        }
        source.resume()
        self.source = source
        signal(SIGUSR1) { _ in
            var byte: UInt8 = 1
            _ = write(PairingButtonSignal.pipeWriteEnd, &byte, 1)
        }
    }

    deinit {
        signal(SIGUSR1, SIG_DFL)
        source.cancel()
        close(Self.pipeWriteEnd)
        close(readEnd)
    }
}
