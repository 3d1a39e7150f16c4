import ReaderProtocol

/// The serial line between a reader's radio module and its microcontroller, as a firmware
/// update meets it: the module puts what the host writes into a receive buffer of
/// ``capacity`` bytes, which the microcontroller drains at ``bytesPerSecond``; bytes that
/// arrive while the buffer is full are lost, as a UART overflow loses them (scenario step
/// `firmware-uart`). Time is the emulated reader's clock, passed in.
struct UARTReceiveBuffer: Sendable {
    let capacity: Int
    let bytesPerSecond: Int
    /// Bytes lost to overflow so far.
    private(set) var dropped = 0
    private var held: [UInt8] = []
    /// The instant up to which draining has been accounted for.
    private var drainedUntil: Duration

    init(_ line: EmulatorScenario.SerialLine, now: Duration) {
        capacity = line.capacity
        bytesPerSecond = line.bytesPerSecond
        drainedUntil = now
    }

    var isEmpty: Bool { held.isEmpty }

    /// The host's bytes arrive: what fits is kept, the rest is lost.
    mutating func arrive(_ bytes: [UInt8]) {
        let room = max(0, capacity - held.count)
        held += bytes.prefix(room)
        dropped += max(0, bytes.count - room)
    }

    /// What the microcontroller has read by `now`, oldest first.
    mutating func drain(until now: Duration) -> [UInt8] {
        guard !held.isEmpty else {
            drainedUntil = now
            return []
        }
        let nanoseconds = (now - drainedUntil) / .nanoseconds(1)
        let count = min(held.count, Int(nanoseconds * Double(bytesPerSecond) / 1e9))
        guard count > 0 else { return [] }
        drainedUntil += .nanoseconds(Int64(Double(count) * 1e9 / Double(bytesPerSecond)))
        defer { held.removeFirst(count) }
        return Array(held.prefix(count))
    }
}
