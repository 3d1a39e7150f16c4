import Logging
import ReaderProtocol
@_spi(Timers) import Timing

/// What the link delivers goes to the state machine: notifications, and the link's end.
extension CardReader {
    func receive(_ item: LinkInbound, generation: UInt64) async {
        switch item {
        case .notification(let bytes):
            if let channel = machine.transferChannel(generation: generation) {
                channel.inputs.yield(.bytes(bytes))
                return
            }
            await run(change { $0.notificationArrived(bytes, generation: generation, now: timing.elapsed()) })
        case .dropped(let reason):
            linkDropped(reason, generation: generation)
            await run(change { $0.linkDropped(reason, generation: generation) })
        }
    }

    func inboundEnded(generation: UInt64) async {
        let reason = LinkError(.linkClosed, "the link ended without a reason")
        linkDropped(reason, generation: generation)
        await run(change { $0.linkDropped(reason, generation: generation) })
    }

    /// The link in use (not an earlier one) dropped: the status records why.
    private func linkDropped(_ reason: LinkError, generation: UInt64) {
        guard machine.openLink?.generation == generation else { return }
        recordDrop(reason)
    }
}
