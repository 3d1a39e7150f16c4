import Logging
import Timing

extension BluetoothSession {
    /// The adapter named `name` (nil: the first powered one), as ``adapter(named:)``
    /// finds it; but while bluetoothd does not list it and the kernel has it
    /// (`kernelControllers`, by default ``KernelBluetoothControllers/names(in:)``), which
    /// means bluetoothd is starting, it is waited for as
    /// ``adapter(named:returningUntil:)`` does, for at most `timeout`. One the kernel lacks
    /// too fails at once.
    public func adapter(
        named name: String?, startingWithin timeout: Duration,
        kernelControllers: [String] = KernelBluetoothControllers.names()
    ) async throws(BluetoothError) -> BluetoothAdapter {
        do throws(BluetoothError) {
            return try await adapter(named: name)
        } catch .noSuchAdapter where Self.kernel(kernelControllers, hasControllerNamed: name) {
            logger.info(
                "the kernel has the adapter and bluetoothd does not list it yet: waiting for bluetoothd to register it",
                metadata: ["adapter": "\(name ?? "any")"])
            return try await adapter(named: name, returningUntil: clock.elapsed() + timeout)
        }
    }

    /// Whether `controllers` has the controller `name` names (nil or an address: any).
    private static func kernel(_ controllers: [String], hasControllerNamed name: String?) -> Bool {
        guard let name, !name.contains(":") else { return !controllers.isEmpty }
        return controllers.contains(name)
    }

    /// The adapter named `name` (nil: the first powered one), waited for until `deadline`
    /// (on the session's clock) while bluetoothd is not running, does not list it yet or
    /// has it powered off: what a caller needs once bluetoothd has restarted under it (it
    /// crashed and systemd started it again), or while it is starting. A starting
    /// bluetoothd owns `org.bluez` before it registers its adapters, and registers each one
    /// powered off before powering it on. Follows BlueZ's signals, polling nothing; at the
    /// deadline, throws what ``adapter(named:)`` throws then.
    public func adapter(named name: String?, returningUntil deadline: Duration) async throws(BluetoothError)
        -> BluetoothAdapter
    {
        // Each adapter change, or bluetoothd changing owner, is one more reason to look.
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let route = try await signals.route(
            under: BlueZNames.managerPath, interfaces: [BlueZNames.adapterInterface],
            deliver: { _ in continuation.yield() }, end: { continuation.finish() })
        defer { route.cancel() }
        let outcome = await clock.run(until: deadline) { [self] () async -> Result<BluetoothAdapter, BluetoothError>? in
            var iterator = changes.makeAsyncIterator()
            repeat {
                do throws(BluetoothError) {
                    return .success(try await adapter(named: name))
                } catch where Self.mayBeReturning(error) {
                    logger.debug("waiting for bluetoothd and its adapter", metadata: ["reason": "\(error)"])
                } catch {
                    return .failure(error)
                }
            } while await iterator.next() != nil
            return nil
        }
        switch outcome {
        case .finished(let result?): return try result.get()
        case .finished(nil), .timedOut: return try await adapter(named: name)
        case .cancelled: throw .cancelled
        }
    }

    /// What ``adapter(named:)`` throws while bluetoothd is starting.
    private static func mayBeReturning(_ error: BluetoothError) -> Bool {
        switch error {
        case .bluetoothdNotRunning, .noSuchAdapter, .adapterPoweredOff: true
        default: false
        }
    }
}
