import CardReaderKit

/// What a test decides about connection attempts: it counts them, can refuse the next
/// ones, and can hold them open until released (a held attempt ends when its task is
/// cancelled, as a real connect does). Every wait is bounded in real time.
actor ConnectorControl {
    private(set) var attempts = 0
    private var refusalsLeft = 0
    private var holding = false
    private var held: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextHold: UInt64 = 0
    private var attemptWaiters: [CheckedContinuation<Void, Never>] = []

    /// Refuses the next `count` attempts.
    func refuse(next count: Int) { refusalsLeft = count }
    /// Holds attempts until ``release()``.
    func hold() { holding = true }
    /// Lets held attempts go on, and later ones too.
    func release() {
        holding = false
        for continuation in held.values { continuation.resume(returning: true) }
        held.removeAll()
    }

    /// Called by the connector: whether the attempt may go on to the real link.
    func begin() async -> Bool {
        attempts += 1
        for waiter in attemptWaiters { waiter.resume() }
        attemptWaiters.removeAll()
        if refusalsLeft > 0 {
            refusalsLeft -= 1
            return false
        }
        guard holding else { return true }
        nextHold += 1
        let id = nextHold
        return await withTaskCancellationHandler {
            await withCheckedContinuation { held[id] = $0 }
        } onCancel: {
            Task { await self.cancelHold(id) }
        }
    }

    private func cancelHold(_ id: UInt64) {
        held.removeValue(forKey: id)?.resume(returning: false)
    }

    /// Waits until at least `count` attempts have begun, up to `limit` of real time.
    func waitForAttempts(_ count: Int, within limit: Duration = .seconds(10)) async throws {
        var expired = false
        let alarm = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            self.wakeAttemptWaiters()
        }
        while attempts < count, !expired {
            await withCheckedContinuation { attemptWaiters.append($0) }
            expired = alarmRang
        }
        alarm.cancel()
        alarmRang = false
        guard attempts >= count else { throw ScriptedReader.Timeout(what: "\(count) connection attempts") }
    }

    /// Set when a wait's real-time bound ran out.
    private var alarmRang = false

    private func wakeAttemptWaiters() {
        alarmRang = true
        for waiter in attemptWaiters { waiter.resume() }
        attemptWaiters.removeAll()
    }
}

/// A connector whose attempts the test controls, in front of a real one.
struct ControlledConnector: ReaderConnector {
    let base: any ReaderConnector
    let control: ConnectorControl

    var readerDescription: String { base.readerDescription }

    func connect() async throws(LinkError) -> any ReaderLink {
        guard await control.begin() else {
            throw LinkError(code: "refused-by-test", detail: "the test refused this connection attempt")
        }
        return try await base.connect()
    }
}
