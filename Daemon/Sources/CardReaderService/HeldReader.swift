import CardReaderContract
import CardReaderKit
import GRPCProtobuf
import Logging
import Synchronization

/// One reader the daemon holds as a lane: its `CardReader`, the lease a client holds on it
/// for a chip session, and the subscribers that follow its status and events.
///
/// Each subscriber has a bounded buffer: one that reads too slowly loses its oldest
/// updates, counted in ``Subscription/dropped``, and the reader never waits for it.
package actor HeldReader {
    /// The name clients use, e.g. `lane-1`.
    package nonisolated let name: String
    /// How the daemon reaches it, e.g. `VPOS3356-1A2B on hci1`.
    package nonisolated let summary: String
    package nonisolated let reader: CardReader
    private let logger: Logger

    /// The client holding the reader for a chip session, if any.
    private var lease: Lease?
    private var subscriptions: [UInt64: Subscription] = [:]
    private var nextID: UInt64 = 0
    /// The status as last published.
    private var status: CardReader.Status
    /// The chip slot, as last learned.
    private var chipSlot = ChipSlotKnowledge()
    /// Why the reader is not connected yet, while the daemon keeps trying: what a command
    /// meanwhile fails with (`not-paired`, with its fix, rather than `not-connected`).
    package private(set) var connectFailure: CardReaderError?
    private var tasks: [Task<Void, Never>] = []
    /// The slot's read at the latest connection's start.
    private var slotRead: Task<Void, Never>?

    /// A client's hold on the reader.
    package struct Lease: Sendable {
        package var id: String
        package var holder: Caller
        /// Taken for one call (a swipe, an EMV read without a lease), not by Hold.
        package var isTemporary = false
        /// Whether the holder powered the card and has not powered it off: the lease's end
        /// powers it off.
        var cardPowered = false
    }

    package init(name: String, summary: String, reader: CardReader, logger: Logger) {
        self.name = name
        self.summary = summary
        self.reader = reader
        self.logger = logger
        status = CardReader.Status(link: .disconnected)
    }

    // MARK: - Running

    /// Connects, and keeps connecting until the reader is there (a lane reconnects by
    /// itself once connected), and follows its status and events for the subscribers.
    package func start() {
        let reader = reader
        tasks.append(Task { [weak self] in
            for await status in await reader.statusUpdates() { await self?.publish(status) }
        })
        tasks.append(Task { [weak self] in
            while !Task.isCancelled {
                for await event in await reader.events() { await self?.publish(event) }
                // The stream lasts one connection: the next one's comes with it.
                try? await Task.sleep(for: .milliseconds(100))
            }
        })
        tasks.append(Task { [weak self, logger, name] in
            var delay = Duration.milliseconds(500)
            while !Task.isCancelled {
                do throws(CardReaderError) {
                    try await reader.connect()
                    await self?.noteConnectFailure(nil)
                    return
                } catch {
                    if Task.isCancelled { return }
                    await self?.noteConnectFailure(error)
                    logger.notice("reader not connected yet; trying again", metadata: ["reader": "\(name)", "error": "\(error)", "in": "\(delay)"])
                    guard (try? await Task.sleep(for: delay)) != nil, self != nil else { return }
                    delay = min(delay * 2, .seconds(30))
                }
            }
        })
    }

    private func noteConnectFailure(_ error: CardReaderError?) {
        connectFailure = error
    }

    /// Stops following the reader, ends every lease (the card powered off) and
    /// subscription, and disconnects.
    package func stop() async {
        for task in tasks { task.cancel() }
        tasks.removeAll()
        slotRead?.cancel()
        if let lease { await end(lease) }
        for subscription in subscriptions.values { subscription.finish() }
        subscriptions.removeAll()
        await reader.disconnect()
    }

    /// The status now, as the contract says it.
    package var statusMessage: Cardreader_V1_ReaderStatus {
        var message = Cardreader_V1_ReaderStatus(status, heldBy: lease?.holder)
        message.chipSlot = chipSlot.message
        return message
    }

    // MARK: - Subscribers

    /// Adds `subscription`, which gets the status now, then every change and event.
    package func subscribe(_ subscription: Subscription) -> UInt64 {
        nextID += 1
        subscriptions[nextID] = subscription
        subscription.deliver(update(.status(statusMessage)))
        return nextID
    }

    package func unsubscribe(_ id: UInt64) {
        subscriptions[id] = nil
    }

    private func publish(_ new: CardReader.Status) {
        let wasConnected = status.link.isConnected
        status = new
        if !new.link.isConnected {
            chipSlot.linkEnded()
        } else if !wasConnected {
            readChipSlot()
        }
        broadcast(.status(statusMessage))
    }

    private func publish(_ event: CardReaderEvent) {
        switch event {
        case .cardInserted: noteChipSlot { $0.cardInserted() }
        case .cardRemoved: noteChipSlot { $0.cardRemoved() }
        default: break
        }
        broadcast(.event(Cardreader_V1_ReaderEvent(event)))
    }

    // MARK: - The chip slot

    /// Reads the slot once, at a connection's start (ICC STATUS): the reader says nothing
    /// of a card that was already in the slot.
    private func readChipSlot() {
        let generation = chipSlot.generation
        let reader = reader
        slotRead?.cancel()
        slotRead = Task { [weak self] in
            guard let slot = try? await reader.cardSlotState() else { return }
            await self?.noteChipSlot { $0.slotRead(slot, startedAt: generation) }
        }
    }

    /// Applies `change` to what is known of the chip slot, and says so when it changed.
    package func noteChipSlot(_ change: (inout ChipSlotKnowledge) -> Void) {
        let before = chipSlot
        change(&chipSlot)
        if chipSlot != before { broadcast(.status(statusMessage)) }
    }

    private func broadcast(_ content: Cardreader_V1_ReaderUpdate.OneOf_Update) {
        let message = update(content)
        for subscription in subscriptions.values { subscription.deliver(message) }
    }

    private func update(_ content: Cardreader_V1_ReaderUpdate.OneOf_Update) -> Cardreader_V1_ReaderUpdate {
        var message = Cardreader_V1_ReaderUpdate()
        message.reader = name
        message.update = content
        return message
    }

    // MARK: - Leases

    /// Gives `caller` the reader's lease (`temporary`: for one call); fails `reader-held`
    /// while another holds it.
    package func acquireLease(for caller: Caller, temporary: Bool = false) throws(GoogleRPCStatus) -> Lease {
        if let lease { throw ServiceFailure.readerHeld(name, by: lease.holder) }
        let lease = Lease(id: Self.makeLeaseID(), holder: caller, isTemporary: temporary)
        self.lease = lease
        logger.log(level: temporary ? .debug : .info, "lease taken", metadata: ["reader": "\(name)", "by": "\(caller)"])
        broadcast(.status(statusMessage))
        return lease
    }

    /// Ends the lease `id` (nothing if it is not the reader's lease): the card is powered
    /// off if its holder left it powered.
    package func releaseLease(_ id: String) async {
        guard let lease, lease.id == id else { return }
        await end(lease)
    }

    private func end(_ ending: Lease) async {
        lease = nil
        if ending.cardPowered {
            do throws(CardReaderError) {
                try await reader.powerOffCard()
                noteChipSlot { $0.poweredOff() }
            } catch {
                logger.notice("could not power the card off at the lease's end", metadata: ["reader": "\(name)", "error": "\(error)"])
            }
        }
        logger.log(level: ending.isTemporary ? .debug : .info, "lease ended", metadata: ["reader": "\(name)", "by": "\(ending.holder)"])
        broadcast(.status(statusMessage))
    }

    /// Checks that `caller` may run `command` now: with `leaseID`, it must be the reader's
    /// lease; without, the reader must be free (`requiresLease`: never). Returns the lease
    /// the command runs under: the caller's, or one taken for the command alone.
    package func lease(
        _ leaseID: String, for caller: Caller, command: String, requiresLease: Bool
    ) throws(GoogleRPCStatus) -> Lease {
        if !leaseID.isEmpty {
            guard let lease, lease.id == leaseID else {
                if let lease { throw ServiceFailure.readerHeld(name, by: lease.holder) }
                throw ServiceFailure.leaseRequired(name, command: command)
            }
            return lease
        }
        if requiresLease {
            if let lease { throw ServiceFailure.readerHeld(name, by: lease.holder) }
            throw ServiceFailure.leaseRequired(name, command: command)
        }
        return try acquireLease(for: caller, temporary: true)
    }

    /// Notes whether the lease `id`'s holder left the card powered.
    package func noteCard(powered: Bool, lease id: String) {
        guard lease?.id == id else { return }
        lease?.cardPowered = powered
    }

    /// The client holding the reader now, if any.
    package var holder: Caller? { lease?.holder }

    /// 128 random bits, as hex.
    private static func makeLeaseID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let digits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}

/// One subscriber's updates, from every reader it follows: a bounded buffer, whose
/// oldest updates go when the subscriber falls behind, counted.
package final class Subscription: Sendable {
    /// The updates, in order.
    package let updates: AsyncStream<Cardreader_V1_ReaderUpdate>
    private let continuation: AsyncStream<Cardreader_V1_ReaderUpdate>.Continuation
    private let droppedSinceTaken = Atomic<UInt64>(0)

    /// A buffer of `capacity` updates.
    package init(capacity: Int) {
        (updates, continuation) = AsyncStream.makeStream(of: Cardreader_V1_ReaderUpdate.self, bufferingPolicy: .bufferingNewest(capacity))
    }

    func deliver(_ update: Cardreader_V1_ReaderUpdate) {
        if case .dropped = continuation.yield(update) { droppedSinceTaken.add(1, ordering: .relaxed) }
    }

    /// The updates dropped since the last call: what the next update written reports.
    package func takeDropped() -> UInt64 { droppedSinceTaken.exchange(0, ordering: .relaxed) }

    package func finish() { continuation.finish() }
}

extension CardReader.Status.Link {
    /// Whether a link is up (a firmware update's included).
    fileprivate var isConnected: Bool {
        switch self {
        case .ready, .busy, .updating: true
        case .disconnected, .connecting, .reconnecting, .resetting, .lost: false
        }
    }
}
