import CardReaderContract
import FoundationEssentials
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SwiftProtobuf
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The driver's connection to one cardreaderd socket, shared by the readers behind it: a
/// gRPC client, and a WatchReaders stream whose updates keep every reader's view, so that
/// pcscd's polls are answered from memory. The client reconnects by itself when the
/// service restarts; the stream is opened again with it.
final class ServiceLink: ChipService {
    let socketPath: String
    private let client: GRPCClient<HTTP2ClientTransport.Posix>
    private let readers: Cardreader_V1_Readers.Client<HTTP2ClientTransport.Posix>
    private let log: DriverLog
    /// Each reader's status as the stream last gave it; nil while the stream is not open.
    private let views = Mutex<[String: ReaderView]?>(nil)
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Whether the service answered last time: its loss and return are logged once each.
    private let reachable = Atomic(true)

    /// How long a chip command may take: the reader's own bound (5 s for an APDU, §8)
    /// with room for a reader that answers slowly and a link that is retransmitting.
    static let commandTimeout = Duration.seconds(15)
    /// How long taking a lease may take.
    static let leaseTimeout = Duration.seconds(5)

    init(socketPath: String, log: DriverLog) throws {
        self.socketPath = socketPath
        self.log = log
        let transport = try HTTP2ClientTransport.Posix(
            target: .unixDomainSocket(path: socketPath), transportSecurity: .plaintext)
        client = GRPCClient(transport: transport)
        readers = Cardreader_V1_Readers.Client(wrapping: client)
    }

    /// Starts the client and the stream of reader updates.
    func start() {
        let client = client
        let connections = Task { _ = try? await client.runConnections() }
        let watch = Task { [weak self] in _ = await self?.follow() }
        tasks.withLock { $0 = [connections, watch] }
    }

    /// Ends the stream and the client: every call under way fails.
    func stop() {
        let running = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        running.last?.cancel()
        client.beginGracefulShutdown()
        running.first?.cancel()
    }

    // MARK: - Following the readers

    /// Keeps the WatchReaders stream open, opening it again after the service went away
    /// (a pause that doubles from 250 ms to 4 s between attempts, from 250 ms again once a
    /// stream brought an update).
    private func follow() async {
        var pause = Duration.milliseconds(250)
        while !Task.isCancelled {
            let answered = Atomic(false)
            do {
                try await readers.watchReaders(Cardreader_V1_WatchReadersRequest()) { [self] response in
                    for try await update in response.messages {
                        if !answered.exchange(true, ordering: .relaxed) { noteReachable(true, detail: "") }
                        apply(update)
                    }
                }
            } catch {
                if Task.isCancelled { break }
                noteReachable(false, detail: Self.describe(error))
            }
            views.withLock { $0 = nil }
            if answered.load(ordering: .relaxed) { pause = .milliseconds(250) }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(4))
        }
        views.withLock { $0 = nil }
    }

    /// Logs the service going away and coming back, once each.
    private func noteReachable(_ now: Bool, detail: String) {
        guard reachable.exchange(now, ordering: .relaxed) != now else { return }
        if now {
            log.info("cardreaderd at \(socketPath) answers again")
        } else {
            log.error("lost cardreaderd at \(socketPath): \(detail); its readers are unavailable until it answers")
        }
    }

    private func apply(_ update: Cardreader_V1_ReaderUpdate) {
        guard case .status(let status) = update.update else { return }
        let view = ReaderView(status)
        views.withLock { views in
            if views == nil { views = [:] }
            views?[update.reader] = view
        }
    }

    /// Waits, at most `timeout`, until the service has said how `reader` is: pcscd checks a
    /// reader's card as soon as it opened it, and drops a reader whose first check fails.
    /// Called from pcscd's thread as it opens the reader; it checks every 10 ms.
    func waitForView(of reader: String, timeout: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if case .reader = view(of: reader) { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
    }

    func view(of reader: String) -> ServiceView {
        views.withLock { views in
            guard let views else { return .unreachable }
            guard let view = views[reader] else { return .unknownReader }
            return .reader(view)
        }
    }

    // MARK: - The chip session's calls

    func takeLease(on reader: String) async throws(DriverFailure) -> any ServiceLease {
        let lease = HoldLease()
        let readers = readers
        let request = Cardreader_V1_HoldRequest.with { $0.reader = reader }
        let task = Task {
            do {
                try await readers.hold(request) { response in
                    for try await update in response.messages {
                        if case .lease(let granted)? = update.update { lease.granted(granted.leaseID) }
                    }
                }
                lease.ended(DriverFailure(kind: .leaseEnded, message: "cardreaderd ended the lease on \(reader)"))
            } catch {
                lease.ended(DriverFailure(error))
            }
        }
        lease.task = task
        let granted = await lease.waitForGrant(timeout: Self.leaseTimeout)
        if case .failure(let failure) = granted {
            task.cancel()
            throw failure
        }
        return lease
    }

    func powerOn(_ reader: String, lease: String) async throws(DriverFailure) -> [UInt8] {
        let request = Cardreader_V1_PowerOnRequest.with {
            $0.reader = reader
            $0.leaseID = lease
        }
        return try await call { [readers] options in [UInt8](try await readers.powerOn(request, options: options).atr) }
    }

    func transmit(_ reader: String, lease: String, apdu: [UInt8]) async throws(DriverFailure) -> [UInt8] {
        let request = Cardreader_V1_TransmitRequest.with {
            $0.reader = reader
            $0.leaseID = lease
            $0.apdu = Data(apdu)
        }
        return try await call { [readers] options in [UInt8](try await readers.transmit(request, options: options).response) }
    }

    func powerOff(_ reader: String, lease: String) async throws(DriverFailure) {
        let request = Cardreader_V1_PowerOffRequest.with {
            $0.reader = reader
            $0.leaseID = lease
        }
        try await call { [readers] options in _ = try await readers.powerOff(request, options: options) }
    }

    /// One unary call, bounded by ``commandTimeout``; its failure as the driver logs it.
    private func call<Value: Sendable>(
        _ body: @Sendable (CallOptions) async throws -> Value
    ) async throws(DriverFailure) -> Value {
        var options = CallOptions.defaults
        options.timeout = Self.commandTimeout
        options.waitForReady = false
        do {
            return try await body(options)
        } catch {
            throw DriverFailure(error)
        }
    }

    private static func describe(_ error: any Error) -> String {
        (error as? RPCError).map { "\($0.code): \($0.message)" } ?? "\(error)"
    }
}

/// A lease that lasts while its Hold stream does.
private final class HoldLease: ServiceLease {
    private enum Phase {
        case waiting([CheckedContinuation<Result<Void, DriverFailure>, Never>])
        case held(String)
        case ended(DriverFailure)
    }

    private let phase = Mutex(Phase.waiting([]))
    private let leaseID = Mutex("")
    /// The task that keeps the Hold stream open.
    let taskBox = Mutex<Task<Void, Never>?>(nil)

    var task: Task<Void, Never>? {
        get { taskBox.withLock { $0 } }
        set { taskBox.withLock { $0 = newValue } }
    }

    var id: String { leaseID.withLock { $0 } }

    var isHeld: Bool {
        phase.withLock { phase in
            if case .held = phase { return true }
            return false
        }
    }

    func granted(_ id: String) {
        leaseID.withLock { $0 = id }
        let waiting = phase.withLock { phase -> [CheckedContinuation<Result<Void, DriverFailure>, Never>] in
            guard case .waiting(let waiting) = phase else { return [] }
            phase = .held(id)
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: .success(())) }
    }

    func ended(_ failure: DriverFailure) {
        let waiting = phase.withLock { phase -> [CheckedContinuation<Result<Void, DriverFailure>, Never>] in
            defer { phase = .ended(failure) }
            guard case .waiting(let waiting) = phase else { return [] }
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: .failure(failure)) }
    }

    /// Waits for the first message (the lease granted) or the stream's end, at most `timeout`.
    func waitForGrant(timeout: Duration) async -> Result<Void, DriverFailure> {
        let alarm = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.ended(DriverFailure(kind: .timedOut, message: "cardreaderd did not grant the lease within \(timeout)"))
        }
        defer { alarm.cancel() }
        return await withCheckedContinuation { continuation in
            let now = phase.withLock { phase -> Result<Void, DriverFailure>? in
                switch phase {
                case .waiting(let waiting):
                    phase = .waiting(waiting + [continuation])
                    return nil
                case .held: return .success(())
                case .ended(let failure): return .failure(failure)
                }
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    func release() {
        ended(DriverFailure(kind: .leaseEnded, message: "the driver released the lease"))
        task?.cancel()
    }
}

extension ReaderView {
    init(_ status: Cardreader_V1_ReaderStatus) {
        let slot: Slot =
            switch status.chipSlot.state {
            case .empty: .empty
            case .cardPresent: .present
            case .cardPowered: .powered
            default: .unknown
            }
        self.init(
            isConnected: status.link == .ready || status.link == .busy, slot: slot,
            answerToReset: [UInt8](status.chipSlot.atr))
    }
}
