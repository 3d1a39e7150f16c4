import Locking

/// Where one ``GattConnection``'s signals land, on the D-Bus dispatch thread: a
/// characteristic's new value goes straight to its notification stream, and everything
/// else about the device (its properties, objects removed, MTU changes, bluetoothd
/// restarting) goes to the connection's actor, in the order bluetoothd sent it.
///
/// Notification streams end with ``GattInbound/dropped(_:)`` when the actor decides the
/// link is lost (``end(with:)``), or plainly when it closes.
final class GattSignalSink: Sendable {
    /// Device events for the connection's actor; finishes when the bus connection ends.
    let control: AsyncStream<BlueZEvent>
    private let controlContinuation: AsyncStream<BlueZEvent>.Continuation
    private let streams = Locked<[DBusObjectPath: AsyncStream<GattInbound>.Continuation]>([:])

    init() {
        (control, controlContinuation) = AsyncStream.makeStream(of: BlueZEvent.self)
    }

    /// The notification stream of the characteristic at `path`, replacing (finishing) an
    /// earlier one.
    func openStream(for path: DBusObjectPath) -> AsyncStream<GattInbound> {
        let (stream, continuation) = AsyncStream.makeStream(of: GattInbound.self)
        let previous = streams.withLock { $0.updateValue(continuation, forKey: path) }
        previous?.finish()
        return stream
    }

    func closeStream(for path: DBusObjectPath) {
        streams.withLock { $0.removeValue(forKey: path) }?.finish()
    }

    /// Delivers one notification of the characteristic at `path` (a `Value` change, or a
    /// datagram from an acquired notification socket). False if nobody listens. Yields
    /// under the streams' lock, so nothing follows ``end(with:)``'s `.dropped`: the lock is
    /// taken on no path that cancels a task (no `onTermination`, no cancellation handler),
    /// so resuming a consumer under it cannot deadlock as `BlueZSignalRouter` explains.
    @discardableResult
    func deliver(_ value: [UInt8], from path: DBusObjectPath) -> Bool {
        streams.withLock { $0[path]?.yield(.notification(value)) } != nil
    }

    /// Runs on the dispatch thread for each signal routed to the connection.
    func receive(_ event: BlueZEvent) {
        if case .propertiesChanged(let change) = event, change.interface == BlueZNames.gattCharacteristicInterface,
            let value = change.changed["Value"]?.bytesValue
        {
            deliver(value, from: change.path)
            // A notification changes nothing else; anything more (MTU) is the actor's.
            guard change.changed.count > 1 || !change.invalidated.isEmpty else { return }
        }
        controlContinuation.yield(event)
    }

    /// Ends every notification stream, with `loss` first when the link was lost.
    func end(with loss: BluetoothLinkLoss?) {
        let all = streams.withLock { streams in
            defer { streams.removeAll() }
            return streams.values
        }
        for continuation in all {
            if let loss { continuation.yield(.dropped(loss)) }
            continuation.finish()
        }
    }

    /// Ends `control`: the bus connection ended, or the connection closed.
    func finishControl() {
        controlContinuation.finish()
    }
}
