import Logging
import Timing

/// A connection to a remote device with resolved GATT services: binds characteristics,
/// receives notifications and writes, and notices the link going away.
///
/// The connection follows BlueZ's signals (subscribed before the first state is read):
/// `Connected` going false, the device object vanishing, a characteristic in use
/// vanishing, or `org.bluez` changing owner end it with a ``BluetoothLinkLoss``
/// (``linkLoss``); calls in flight then fail at once with
/// ``BluetoothError/linkLost(_:)`` and notification streams finish. A drop once the
/// device's adapter is powering down (bluetoothd stopping, or the adapter switched off) is
/// this host's, not the device's: the adapter's state is asked at each drop.
public actor GattConnection {
    public nonisolated let device: BluetoothDevice
    nonisolated var session: BluetoothSession { device.session }
    nonisolated var path: DBusObjectPath { device.path }

    /// The device's properties, kept current.
    public private(set) var info: BluetoothDeviceInfo?
    /// Why the link ended, once it has ended on its own.
    public private(set) var linkLoss: BluetoothLinkLoss?

    private var closed = false
    private var established = false
    private var deviceRemoved = false
    private var connectedSeen = false
    private var droppedDuringSetup = false
    /// The adapter announced it is powering down (`PowerState` leaving `on`).
    private var adapterPoweringDown = false
    /// `Connected` went false on the established link: its loss is being worked out.
    private var judgingDrop = false
    /// Notifications go from the D-Bus dispatch thread straight to their stream; the rest
    /// of the device's signals come to this actor through ``GattSignalSink/control``.
    let sink = GattSignalSink()
    /// The bus name of the bluetoothd the connection was made with (nil if unknown).
    private var bluetoothdOwner: String?
    private var route: BlueZSignalRoute?
    private var adapterRoute: BlueZSignalRoute?
    private var pump: Task<Void, Never>?
    private var nextID = 0
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var calls: [Int: Task<Result<[DBusValue], BluetoothError>, Never>] = [:]
    var attributesInUse: Set<DBusObjectPath> = []
    var mtus: [DBusObjectPath: Int] = [:]
    /// Characteristics notifying through `StartNotify` (stopped on disconnect).
    var startedNotify: Set<DBusObjectPath> = []
    /// Sockets from `AcquireNotify`/`AcquireWrite` (closed when the connection ends).
    var sockets: [GattAcquiredSocket] = []

    private init(device: BluetoothDevice) {
        self.device = device
    }

    static func open(_ device: BluetoothDevice, timeout: Duration, attempts: Int, resolutionWindow: Duration)
        async throws(BluetoothError) -> GattConnection
    {
        let connection = GattConnection(device: device)
        do throws(BluetoothError) {
            try await connection.establish(
                deadline: device.session.clock.elapsed() + timeout, timeout: timeout, attempts: max(1, attempts),
                resolutionWindow: resolutionWindow)
        } catch {
            await connection.abandon()
            throw error
        }
        return connection
    }

    /// The device as a short text for messages.
    var name: String { info?.summary ?? path.rawValue }

    // MARK: - Connecting

    /// Deadlines are times on the session's clock (``BluetoothSession/clock``).
    private func establish(
        deadline: Duration, timeout: Duration, attempts: Int, resolutionWindow: Duration
    ) async throws(BluetoothError) {
        let sink = self.sink
        route = try await session.signals.route(
            under: path, deliver: { sink.receive($0) }, end: { sink.finishControl() })
        // bluetoothd stopping powers its adapters down before their links drop (PowerState
        // "on-disabling"): that is what tells its drop from the device's.
        adapterRoute = try await session.signals.route(
            under: adapterPath, interfaces: [BlueZNames.adapterInterface], deliver: { sink.receive($0) }, end: {})
        // Read after the routes exist: a later restart is an owner change they see.
        bluetoothdOwner = try? await session.connection.nameOwner(BlueZNames.service)
        pump = Task(executorPreference: session.connection.executor) { [weak self] in
            for await event in sink.control {
                guard let self else { return }
                await self.handle(event)
            }
            await self?.lose(.busLost("the D-Bus connection ended"))
        }
        info = try await device.info()
        if info?.isConnected == true {
            session.logger.debug("device already connected", metadata: ["device": "\(name)"])
        }
        // Connect attempts, and those among them whose services stalled: a stall is not a
        // failed Connect, so it does not use up `attempts`; time bounds its retries.
        var attempt = 0
        var stalls = 0
        while true {
            attempt += 1
            connectedSeen = info?.isConnected ?? false
            droppedDuringSetup = false
            do throws(BluetoothError) {
                if info?.isConnected != true {
                    try await connectCall(deadline: deadline, timeout: timeout)
                    // Connect may answer before BlueZ emits the matching PropertiesChanged.
                    info = try await device.info()
                }
                // Only a bonded device's connection can stall so (its bearer is opened
                // encrypted); a first discovery, however slow the peer, has all the time.
                // A window is kept while the time left holds two: the attempt after a
                // stall gets at least one, and the last attempt has all the time left.
                let window =
                    attempts > 1 && info?.isBonded == true && deadline - now >= resolutionWindow * 2
                    ? resolutionWindow : nil
                if try await waitForServices(deadline: deadline, window: window, timeout: timeout) == .stalled,
                    let window
                {
                    stalls += 1
                    session.logger.notice(
                        "services did not resolve; connecting again",
                        metadata: ["device": "\(name)", "waited": "\(window)", "stalls": "\(stalls)"])
                    try await reconnectAfterStall(deadline: deadline, timeout: timeout)
                    continue
                }
                established = true
                session.logger.debug("connected, services resolved", metadata: ["device": "\(name)", "attempt": "\(attempt)"])
                return
            } catch {
                // Bonded, connected, then dropped while connecting: bluetoothd opens a bonded
                // device's ATT channel encrypted, so the encryption may have failed (BlueZ
                // 5.66 says only le-connection-abort-by-local). A transient abort looks the
                // same, so it is taken for that only when the last attempt fails this way.
                let encryptionSuspect =
                    info?.isBonded == true && connectedSeen
                    && (error.code.isTransientConnectFailure || error.code == .remoteDisconnected)
                let failures = attempt - stalls
                guard failures < attempts, Self.isRetryable(error), now < deadline else {
                    throw encryptionSuspect ? .encryptionFailed(name) : error
                }
                session.logger.debug("connect attempt failed, retrying", metadata: ["device": "\(name)", "error": "\(error)"])
                await sleep(for: .milliseconds(250 * failures), until: deadline)
            }
        }
    }

    /// Errors worth another `Connect`: an aborted LE connection, an operation in progress,
    /// a link that dropped while services were being resolved.
    static func isRetryable(_ error: BluetoothError) -> Bool {
        error.code.isTransientConnectFailure || error.code == .remoteDisconnected
    }

    private func connectCall(deadline: Duration, timeout: Duration) async throws(BluetoothError) {
        let remaining = deadline - now
        guard remaining > .zero else { throw .timedOut("connecting to \(name)", after: timeout) }
        do throws(BluetoothError) {
            try await perform(
                BlueZNames.deviceInterface, "Connect", timeout: remaining, operation: "Connect to \(name)")
        } catch where error.code == .alreadyConnected {
            return
        } catch where error.code == .noReply {
            throw .timedOut("connecting to \(name)", after: timeout)
        }
    }

    /// How long a bonded device's services may take to resolve on a connection that is not
    /// the last attempt: 4 s, half the connection's time limit at most. A reader served by
    /// bluetoothd 5.66 now and then leaves a bonded host's ATT requests unanswered (see
    /// ``pauseAfterStall``), and this host's bluetoothd would wait out its 30 s ATT
    /// timeout; a new connection does not inherit that state. A cached table resolves in a
    /// few ATT round trips: of 800 bonded connections in loaded emulated guests, half
    /// resolved within 0.9 s of the link coming up, 99 % within 3.6 s, 795 within 4 s (the
    /// slowest in 6.9 s; `Docs/bluetooth-notes.md`). The window is short because every stall
    /// costs it, and stalls are frequent there: a connection cut short while still
    /// resolving costs one more connection, not the connect.
    static func resolutionWindow(timeout: Duration) -> Duration {
        min(.seconds(4), timeout / 2)
    }

    private enum Resolution { case resolved, stalled }

    /// Waits for `ServicesResolved` until `deadline`, or for `window` after the connection
    /// came up (then `.stalled`, while the overall deadline still leaves time to retry).
    private func waitForServices(deadline: Duration, window: Duration?, timeout: Duration)
        async throws(BluetoothError) -> Resolution
    {
        let stallAt = window.map { min(now + $0, deadline) }
        while true {
            if let linkLoss { throw .linkLost(linkLoss) }
            if deviceRemoved { throw .linkLost(.deviceRemoved(name)) }
            if droppedDuringSetup { throw .linkLost(.remoteDisconnected(name)) }
            if let info, info.isConnected, info.servicesResolved { return .resolved }
            if Task.isCancelled { throw .cancelled }
            let now = self.now
            guard now < deadline else {
                throw .timedOut("connecting to \(name) and resolving its services", after: timeout)
            }
            if let stallAt, now >= stallAt { return .stalled }
            await waitForChange(until: stallAt ?? deadline)
        }
    }

    /// How long a stalled connection's device is left alone, once disconnected, before it
    /// is connected again. The stall is the reader's, where bluetoothd 5.66 serves it (as
    /// for `readerctl emulate`): it takes the new link's ATT channel after this host has
    /// already encrypted the link, fails to raise the channel's security to the bond's
    /// (`setsockopt(BT_SECURITY): Invalid argument`, in its debug log with every stall:
    /// Linux refuses to raise a channel on a link already at that level) and gives the
    /// channel up, serving only the Enhanced ATT channels opened later. In the captures,
    /// 101 of 107 stalls came with the link already encrypted then, and none of the 405
    /// connections whose channel the reader raised. Of 778 connections to bonded readers in
    /// loaded guests, 126 stalled (16 %), the same share whenever the connection was made
    /// after a link had ended (102 in 674) except within 1 s of it (24 in 104), and after a
    /// stall as after anything else (10 in 57): a longer pause buys nothing and costs the
    /// connect its next attempt (`Docs/bluetooth-notes.md`).
    package static let pauseAfterStall: Duration = .milliseconds(1500)

    /// Ends a connection whose services stalled (`Device1.Disconnect`, which bluetoothd
    /// answers once the link is down), so that the next attempt connects afresh.
    /// bluetoothd may be what stalled: the call waits no longer than the connection's
    /// deadline, so the caller hears of the stall in time, not after its own limit. The
    /// device is then left alone for ``pauseAfterStall`` and read again.
    private func reconnectAfterStall(deadline: Duration, timeout: Duration) async throws(BluetoothError) {
        let remaining = min(deadline - now, .seconds(10))
        guard remaining > .zero else { throw .timedOut("connecting to \(name) and resolving its services", after: timeout) }
        await session.cleanUp(path, BlueZNames.deviceInterface, "Disconnect", timeout: remaining)
        await sleep(for: Self.pauseAfterStall, until: deadline)
        if Task.isCancelled { throw .cancelled }
        let left = deadline - now
        guard left > .zero else { throw .timedOut("connecting to \(name) and resolving its services", after: timeout) }
        info = try await device.info(timeout: min(left, .seconds(10)))
    }

    /// After a failed connect: stop BlueZ's connection attempt and the signal pump. The
    /// Disconnect is sent, and waited for half a second at most: a stalled bluetoothd must
    /// not hold back the error the caller is owed.
    private func abandon() async {
        closed = true
        finish()
        await session.cleanUp(path, BlueZNames.deviceInterface, "Disconnect", timeout: .milliseconds(500))
    }


    // MARK: - Closing

    /// Stops notifications and disconnects the device (`Device1.Disconnect`). Idempotent.
    public func disconnect() async {
        guard !closed else { return }
        closed = true
        let wasLost = linkLoss != nil
        let notifying = startedNotify
        finish()
        guard !wasLost else { return }
        for characteristic in notifying {
            await session.cleanUp(characteristic, BlueZNames.gattCharacteristicInterface, "StopNotify", timeout: .seconds(2))
        }
        await session.cleanUp(path, BlueZNames.deviceInterface, "Disconnect", timeout: .seconds(10))
    }

    private func finish() {
        route?.cancel()
        route = nil
        adapterRoute?.cancel()
        adapterRoute = nil
        sink.finishControl()
        pump?.cancel()
        pump = nil
        for call in calls.values { call.cancel() }
        for socket in sockets { socket.close() }
        sockets = []
        sink.end(with: linkLoss)
        wakeAll()
    }

    private func lose(_ loss: BluetoothLinkLoss) {
        guard linkLoss == nil, !closed else { return }
        linkLoss = loss
        session.logger.info("Bluetooth link lost", metadata: ["device": "\(name)", "reason": "\(loss.code)"])
        finish()
    }

    // MARK: - Acquired sockets

    /// bluetoothd hung up a notification socket: the device disconnected (its signal may
    /// still be on its way, so ask), or bluetoothd dropped the socket alone.
    func socketHungUp(_ path: DBusObjectPath) async {
        _ = await lossAfterSocketClosed(path, what: "the notification socket")
    }

    /// A write on an acquired socket failed with `errno`: the error to report.
    func socketFailed(_ path: DBusObjectPath, errno error: Int32) async -> BluetoothError {
        if closed && linkLoss == nil { return .closed }
        return .linkLost(await lossAfterSocketClosed(path, what: "the write socket (errno \(error))"))
    }

    /// Asks BlueZ what happened: bluetoothd's own signal may still be on its way, or never
    /// come (the bus or bluetoothd died), so the answer to a call decides.
    private func lossAfterSocketClosed(_ path: DBusObjectPath, what: String) async -> BluetoothLinkLoss {
        guard linkLoss == nil, !closed else {
            return linkLoss ?? BluetoothLinkLoss(.notConnected, "the connection to \(name) is closed")
        }
        let loss: BluetoothLinkLoss
        do throws(BluetoothError) {
            let connected = try await device.info().isConnected
            let characteristicExists = try await characteristicExists(at: path)
            let dropped = connected ? nil : await disconnected()
            loss =
                if let dropped { dropped }
                else if !characteristicExists { .servicesRemoved(path.rawValue) }
                else { BluetoothLinkLoss(.acquiredSocketClosed, "bluetoothd closed \(what) of \(path) while \(name) stayed connected") }
        } catch {
            loss =
                await bluetoothdLeftTheBus(after: error)
                ?? .socketClosed(what, of: path.rawValue, device: name, askingWhyFailed: error)
        }
        lose(loss)
        return linkLoss ?? loss
    }

    /// The device's adapter: BlueZ exports a device below it (`/org/bluez/hci1/dev_…`).
    private nonisolated var adapterPath: DBusObjectPath {
        let device = path.rawValue
        return DBusObjectPath(String(device[..<(device.lastIndex(of: "/") ?? device.endIndex)]))
    }

    /// What `Connected` going false means: the device's drop, or this host's Bluetooth
    /// going under it.
    private func disconnected() async -> BluetoothLinkLoss {
        await hostBluetoothGoing() ?? .remoteDisconnected(name)
    }

    /// How long a stopping bluetoothd gets to say what its adapter is doing (it is busy
    /// powering its adapters down and ending every link).
    static let adapterQueryTimeout = Duration.seconds(5)

    /// This host's Bluetooth going away under the link, if it is: the adapter powering down
    /// (bluetoothd stopping, or the adapter switched off), or bluetoothd gone from the bus.
    /// bluetoothd sets the adapter's state before its links drop, but its signal saying so
    /// can come after the drop's, and after the answer to a call made meanwhile (bluetoothd
    /// answers calls before it sends queued property changes): the state is asked unless
    /// the signal came first, and a state nobody answers for is the bus's to tell.
    private func hostBluetoothGoing() async -> BluetoothLinkLoss? {
        if !adapterPoweringDown {
            do throws(DBusError) {
                let adapter = try await session.connection.getAllProperties(
                    interface: BlueZNames.adapterInterface, destination: BlueZNames.service, path: adapterPath,
                    timeout: Self.adapterQueryTimeout)
                adapterPoweringDown =
                    adapter["PowerState"]?.stringValue.map { $0 != "on" } ?? (adapter["Powered"]?.boolValue == false)
            } catch {
                let (replaced, newOwner) = await bluetoothdReplaced()
                return replaced ? .bluetoothdRestarted(newOwner: newOwner) : nil
            }
        }
        guard adapterPoweringDown else { return nil }
        return .adapterPoweringDown(String(adapterPath.rawValue.split(separator: "/").last ?? ""), device: name)
    }

    /// Whether BlueZ still has the characteristic object at `path`.
    private func characteristicExists(at path: DBusObjectPath) async throws(BluetoothError) -> Bool {
        do throws(DBusError) {
            _ = try await session.connection.getAllProperties(
                interface: BlueZNames.gattCharacteristicInterface, destination: BlueZNames.service, path: path,
                timeout: .seconds(5))
            return true
        } catch {
            if DBusErrorName.objectGone.contains(where: error.isRemote) { return false }
            throw BluetoothError(error, operation: "reading \(path)")
        }
    }

    // MARK: - Signals

    private func handle(_ event: BlueZEvent) async {
        switch event {
        case .propertiesChanged(let change):
            if change.path == path, change.interface == BlueZNames.deviceInterface {
                session.logger.debug(
                    "device properties changed",
                    metadata: ["device": "\(path)", "changed": "\(change.changed.keys.sorted())"])
                info?.apply(changed: change.changed, invalidated: change.invalidated)
                if let connected = change.changed["Connected"]?.boolValue {
                    if connected {
                        connectedSeen = true
                    } else if established, !judgingDrop {
                        judgingDrop = true
                        lose(await disconnected())
                    } else if connectedSeen {
                        droppedDuringSetup = true
                    }
                }
                wakeAll()
            } else if change.interface == BlueZNames.gattCharacteristicInterface,
                let mtu = change.changed["MTU"]?.intValue
            {
                mtus[change.path] = mtu
            } else if change.path == adapterPath, change.interface == BlueZNames.adapterInterface {
                if let state = change.changed["PowerState"]?.stringValue {
                    adapterPoweringDown = state != "on"
                } else if let powered = change.changed["Powered"]?.boolValue {
                    adapterPoweringDown = !powered
                }
            }
        case .interfacesRemoved(let removed):
            if removed.objectPath == path, removed.interfaces.contains(BlueZNames.deviceInterface) {
                deviceRemoved = true
                if established { lose(.deviceRemoved(name)) }
                wakeAll()
            } else if established, attributesInUse.contains(removed.objectPath) {
                lose(.servicesRemoved(removed.objectPath.rawValue))
            }
        case .interfacesAdded:
            break
        case .ownerChanged(let change):
            lose(.bluetoothdRestarted(newOwner: change.newOwner))
        }
    }

    // MARK: - Calls and waits

    /// A BlueZ call that ends at once (with the link loss) if the link drops meanwhile.
    @discardableResult
    func perform(
        _ interface: String, _ member: String, _ arguments: [DBusValue] = [], at target: DBusObjectPath? = nil,
        timeout: Duration, operation: String
    ) async throws(BluetoothError) -> [DBusValue] {
        if let linkLoss { throw .linkLost(linkLoss) }
        if closed { throw .closed }
        let id = makeID()
        let session = self.session
        let objectPath = target ?? path
        let task = Task { () -> Result<[DBusValue], BluetoothError> in
            do throws(BluetoothError) {
                return .success(
                    try await session.call(objectPath, interface, member, arguments, timeout: timeout, operation: operation))
            } catch {
                return .failure(error)
            }
        }
        calls[id] = task
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        calls[id] = nil
        switch result {
        case .success(let body): return body
        case .failure(let error):
            await noticeHostBluetoothGoing(after: error)
            if let linkLoss { throw .linkLost(linkLoss) }
            if closed { throw .closed }
            throw error
        }
    }

    /// A call that failed because this host's Bluetooth is going away can end before the
    /// signal saying so is handled: the caller is to see the link loss, not a bare error.
    /// bluetoothd not answering is the bus's to tell (has it left?); BlueZ refusing a call on
    /// an established link (a write, "Not connected") as bluetoothd stops is the adapter's.
    /// BlueZ's back-pressure (InProgress, retried by the caller) is neither.
    private func noticeHostBluetoothGoing(after error: BluetoothError) async {
        guard linkLoss == nil else { return }
        if let gone = await bluetoothdLeftTheBus(after: error) {
            lose(gone)
        } else if case .bluez = error, error.code != .inProgress, error.code != .noReply, established,
            let going = await hostBluetoothGoing()
        {
            lose(going)
        }
    }

    /// bluetoothd gone from the bus, when a call to it failed as it would then: not running,
    /// or no reply (the bus answers NoReply for a caller whose callee left it mid-call, as
    /// bluetoothd does when it stops). The bus's name table decides, never the error alone: a
    /// NoReply can also be a call left unanswered for too long. Asking for the name's owner
    /// starts nothing (a call to `org.bluez` itself could start bluetoothd again by bus
    /// activation).
    private func bluetoothdLeftTheBus(after error: BluetoothError) async -> BluetoothLinkLoss? {
        switch error {
        case .bluetoothdNotRunning: break
        case .bluez where error.code == .noReply: break
        default: return nil
        }
        let (replaced, newOwner) = await bluetoothdReplaced()
        return replaced ? .bluetoothdRestarted(newOwner: newOwner) : nil
    }

    /// Whether the bluetoothd the connection was made with is gone: nobody owns
    /// `org.bluez` now, or another process does. A stopping bluetoothd exits without
    /// answering what it was asked, and systemd or the bus may have started the next one
    /// by the time the owner is asked: "somebody owns it" alone would take the drop for the
    /// reader's. Asking starts nothing.
    private func bluetoothdReplaced() async -> (replaced: Bool, newOwner: String?) {
        let owner: String
        do throws(DBusError) {
            owner = try await session.connection.nameOwner(BlueZNames.service)
        } catch {
            return (error.isRemote(DBusErrorName.nameHasNoOwner), nil)
        }
        guard let bluetoothdOwner, owner != bluetoothdOwner else { return (false, nil) }
        return (true, owner)
    }

    private func makeID() -> Int {
        nextID += 1
        return nextID
    }

    /// The session's clock now.
    var now: Duration { session.clock.elapsed() }

    /// Returns at the next state change, at `deadline`, or on cancellation.
    private func waitForChange(until deadline: Duration) async {
        let id = makeID()
        let clock = session.clock
        let timer = Task { [weak self] in
            try? await clock.sleep(deadline)
            await self?.wake(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled || closed {
                    continuation.resume()
                } else {
                    waiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.wake(id) }
        }
        timer.cancel()
    }

    /// Sleeps for `duration` (not past `deadline`), returning early on cancellation.
    func sleep(for duration: Duration, until deadline: Duration) async {
        try? await session.clock.sleep(min(now + duration, deadline))
    }

    private func wake(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }

    private func wakeAll() {
        let all = waiters
        waiters = [:]
        for continuation in all.values { continuation.resume() }
    }
}
