import CardReaderKit
import CardReaderKitTesting
import Synchronization

/// Damage the soak puts on the line from the reader, applied to the next notification.
enum LineFault: Sendable {
    /// A notification of line noise (no STX) before it: the decoder discards it.
    case noise
    /// A false STX whose header declares 272 bytes before it, in the same notification:
    /// the answer comes out when the incomplete frame is cut off (250 ms).
    case falseStart
    /// Its last byte inverted: the frame fails its CRC and the command times out.
    case corruption
}

/// Faults armed by the soak, taken by the link one notification at a time.
final class FaultPlan: Sendable {
    private let pending = Mutex<[LineFault]>([])

    func arm(_ fault: LineFault) { pending.withLock { $0.append(fault) } }

    fileprivate func take() -> LineFault? {
        pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}

/// Opens links to the emulated reader whose inbound notifications pass through `plan`.
struct FaultInjectingConnector: ReaderConnector {
    let base: EmulatedReaderConnector
    let plan: FaultPlan

    var readerDescription: String { base.readerDescription }

    func connect() async throws(LinkError) -> any ReaderLink {
        FaultInjectingLink(base: try await base.connect(), plan: plan)
    }
}

private struct FaultInjectingLink: ReaderLink {
    let base: any ReaderLink
    let inbound: AsyncStream<LinkInbound>

    init(base: any ReaderLink, plan: FaultPlan) {
        self.base = base
        let (stream, continuation) = AsyncStream.makeStream(of: LinkInbound.self)
        inbound = stream
        let forwarding = Task {
            for await item in base.inbound {
                guard case .notification(var bytes) = item, let fault = plan.take() else {
                    continuation.yield(item)
                    continue
                }
                switch fault {
                case .noise:
                    continuation.yield(.notification([0xA5, 0x5A, 0xFF, 0x00]))
                case .falseStart:
                    bytes.insert(contentsOf: [0xFF, 0x02, 0x00, 0x07, 0x01, 0x10], at: 0)
                case .corruption:
                    bytes[bytes.count - 1] ^= 0xFF
                }
                continuation.yield(.notification(bytes))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
    }

    var maximumWriteLength: Int { get async { await base.maximumWriteLength } }
    func write(_ packet: [UInt8]) async throws(LinkError) { try await base.write(packet) }
    func close() async { await base.close() }
}
