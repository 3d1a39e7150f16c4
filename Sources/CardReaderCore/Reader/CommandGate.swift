/// One at a time, callers queued in arrival order: a reader's commands, a fleet's
/// discoveries and connection set-ups.
///
/// Lives inside an actor (`CardReader`, `BlueZReaderFleet`), so it needs no lock of its own. A queued caller
/// is resumed with `true` when it holds the gate, or `false` when it left the queue
/// because its task was cancelled.
package struct CommandGate {
    private var busy = false
    private var nextTicket: UInt64 = 0
    private var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []

    /// A free gate.
    package init() {}

    /// Whether nobody holds the gate and nobody is queued.
    package var isFree: Bool { !busy && waiters.isEmpty }

    /// Takes the gate if it is free and nobody is queued.
    package mutating func tryAcquire() -> Bool {
        guard !busy, waiters.isEmpty else { return false }
        busy = true
        return true
    }

    /// A ticket naming a queued caller.
    package mutating func takeTicket() -> UInt64 {
        nextTicket += 1
        return nextTicket
    }

    package mutating func enqueue(_ ticket: UInt64, _ continuation: CheckedContinuation<Bool, Never>) {
        waiters.append((ticket, continuation))
    }

    /// Removes a queued caller whose task was cancelled (no-op if it already got the gate).
    package mutating func abandon(_ ticket: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.ticket == ticket }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }

    /// Hands the gate to the next caller in line, or frees it.
    package mutating func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().continuation.resume(returning: true)
        }
    }
}
