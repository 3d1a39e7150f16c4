import CardReaderContract
import CardReaderKit
import GRPCCore
import GRPCProtobuf
import Logging
import SwiftProtobuf

/// The `cardreader.v1.Readers` service over the daemon's readers: who may call (the
/// ``AccessPolicy``), card data masked unless the caller may have it and asks, each
/// reader's chip session in a lease, and a call's end (its client's cancel, its deadline,
/// its connection closing, the daemon stopping) cancelling its reader command.
///
/// A `Cardreader_V1_Readers.SimpleServiceProtocol`: its handlers take the request message
/// and return the response, the streaming ones writing to an `RPCWriter`.
package struct ReadersService: Cardreader_V1_Readers.SimpleServiceProtocol {
    package let readers: HeldReaders
    /// Who may call, and who may have card data: replaced when the daemon reloads.
    package let access: AccessControl
    /// How many updates a WatchReaders subscriber may fall behind before its oldest go.
    package let subscriberBuffer: Int
    /// Set once the daemon begins to stop.
    package let shutdown: DaemonShutdown
    let logger: Logger

    package init(
        readers: HeldReaders, access: AccessControl, subscriberBuffer: Int = 256, shutdown: DaemonShutdown = DaemonShutdown(),
        logger: Logger
    ) {
        self.readers = readers
        self.access = access
        self.subscriberBuffer = subscriberBuffer
        self.shutdown = shutdown
        self.logger = logger
    }

    // MARK: - Callers and calls

    /// The call's caller, if it may call at all.
    func caller(of context: ServerContext) throws(GoogleRPCStatus) -> (Caller, ContinuousClock.Instant?) {
        guard let known = context.transportSpecific as? CallerContext else { throw ServiceFailure.unauthenticated }
        guard access.policy.allows(known.caller.principal) else { throw ServiceFailure.notAllowed(known.caller) }
        return (known.caller, known.deadline)
    }

    /// Checks that `caller` may have card data unmasked, and logs that it has it: who, on
    /// which reader, what; never the data.
    func authorizeReveal(to caller: Caller, on reader: HeldReader, of what: String) throws(GoogleRPCStatus) {
        guard access.policy.allowsReveal(to: caller) else { throw ServiceFailure.revealRefused(reader.name, to: caller, what: what) }
        logger.notice("card data revealed", metadata: ["to": "\(caller)", "reader": "\(reader.name)", "what": "\(what)"])
    }

    /// Runs `operation` on `reader`'s `CardReader` in a task that the call's end cancels:
    /// the SDK then sends CANCEL (CAN CAN during a firmware transfer). Its failure is the
    /// contract's status; a cancellation past the caller's deadline is `DEADLINE_EXCEEDED`.
    func perform<Value: Sendable>(
        on reader: HeldReader, until deadline: ContinuousClock.Instant?,
        _ operation: @escaping @Sendable (CardReader) async throws(CardReaderError) -> Value
    ) async throws(GoogleRPCStatus) -> Value {
        let cardReader = reader.reader
        let task = Task { () -> Result<Value, CardReaderError> in
            do throws(CardReaderError) {
                return .success(try await operation(cardReader))
            } catch {
                return .failure(error)
            }
        }
        // A deadline that passes before the transport's own timer fires ends the call too.
        let alarm = deadline.map { deadline in
            Task {
                try? await Task.sleep(until: deadline)
                task.cancel()
            }
        }
        defer { alarm?.cancel() }
        let result = await withTaskCancellationHandler {
            await withRPCCancellationHandler {
                await task.value
            } onCancelRPC: {
                task.cancel()
            }
        } onCancel: {
            task.cancel()
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error) where error.code == .cancelled && shutdown.isStopping:
            throw ServiceFailure.shuttingDown(reader.name)
        case .failure(let error) where error.code == .notConnected:
            // Never connected yet: why the daemon cannot reach it says more.
            throw ServiceFailure.from(await reader.connectFailure ?? error, reader: reader.name)
        case .failure(let error):
            // The reader found the slot empty: what its events may not have said.
            if error.code == .noCard || error.code == .cardRemoved { await reader.noteChipSlot { $0.cardRemoved() } }
            let past = deadline.map { ContinuousClock.now >= $0 } ?? false
            throw ServiceFailure.from(error, reader: reader.name, pastDeadline: past)
        }
    }

    /// Runs `operation` under `leaseID` (the caller's lease), or, without one, under a
    /// lease taken for the call alone: fails `reader-held` while another client holds the
    /// reader, `lease-required` for a chip-session command (`requiresLease`) without it.
    func leased<Value: Sendable>(
        _ reader: HeldReader, leaseID: String, caller: Caller, command: String, requiresLease: Bool = false,
        _ body: (HeldReader.Lease) async throws(GoogleRPCStatus) -> Value
    ) async throws(GoogleRPCStatus) -> Value {
        let lease = try await reader.lease(leaseID, for: caller, command: command, requiresLease: requiresLease)
        do throws(GoogleRPCStatus) {
            let value = try await body(lease)
            if lease.isTemporary { await reader.releaseLease(lease.id) }
            return value
        } catch {
            if lease.isTemporary { await reader.releaseLease(lease.id) }
            throw error
        }
    }

    // MARK: - Readers

    package func listReaders(
        request: Cardreader_V1_ListReadersRequest, context: ServerContext
    ) async throws -> Cardreader_V1_ListReadersResponse {
        _ = try caller(of: context)
        var response = Cardreader_V1_ListReadersResponse()
        for reader in readers.all {
            var entry = Cardreader_V1_Reader()
            entry.name = reader.name
            entry.description_p = reader.summary
            entry.status = await reader.statusMessage
            response.readers.append(entry)
        }
        return response
    }

    package func watchReaders(
        request: Cardreader_V1_WatchReadersRequest, response: RPCWriter<Cardreader_V1_ReaderUpdate>,
        context: ServerContext
    ) async throws {
        _ = try caller(of: context)
        var followed: [HeldReader] = []
        for name in request.readers { followed.append(try readers.named(name)) }
        if followed.isEmpty { followed = readers.all }
        let subscription = Subscription(capacity: subscriberBuffer)
        var ids: [(HeldReader, UInt64)] = []
        for reader in followed { ids.append((reader, await reader.subscribe(subscription))) }
        defer {
            subscription.finish()
            let ids = ids
            Task { for (reader, id) in ids { await reader.unsubscribe(id) } }
        }
        try await withRPCCancellationHandler {
            for await update in subscription.updates {
                var update = update
                update.dropped = subscription.takeDropped()
                try await response.write(update)
            }
        } onCancelRPC: {
            subscription.finish()
        }
    }

    package func info(request: Cardreader_V1_InfoRequest, context: ServerContext) async throws -> Cardreader_V1_InfoResponse {
        let (_, deadline) = try caller(of: context)
        let reader = try readers.named(request.reader)
        let info = try await perform(on: reader, until: deadline) { reader throws(CardReaderError) in try await reader.info() }
        return .with {
            $0.model = info.model ?? ""
            $0.serialNumber = info.serialNumber ?? ""
            $0.firmwareVersion = info.firmwareVersion ?? ""
            if let percent = info.batteryPercent { $0.batteryPercent = UInt32(percent) }
            $0.capabilities = info.capabilities?.names ?? []
            $0.bootloaderVersion = info.bootloaderVersion ?? ""
        }
    }
}
