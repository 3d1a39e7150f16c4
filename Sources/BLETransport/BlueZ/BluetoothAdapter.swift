import Logging
import Timing

/// A local Bluetooth controller (`org.bluez.Adapter1`), e.g. `hci0`.
public struct BluetoothAdapter: Sendable {
    public let session: BluetoothSession
    /// `hci0`.
    public let name: String
    /// `/org/bluez/hci0`.
    public let path: DBusObjectPath
    public let address: String
    /// Whether the adapter was powered when it was looked up.
    public let isPowered: Bool
    /// The LE roles it supports (`Roles`: `central`, `peripheral`; empty for a controller
    /// without LE); nil when this BlueZ does not say.
    public let roles: [String]?
    /// `Modalias`, e.g. `usb:v1D6Bp0246d0542`: unless `DeviceID` is set in main.conf,
    /// bluetoothd's own ID, its version in the last four digits (`0542`: 5.66).
    public let modalias: String?

    init?(session: BluetoothSession, path: DBusObjectPath, properties: [String: DBusValue]) {
        self.session = session
        self.path = path
        name = path.lastElement
        address = properties["Address"]?.stringValue ?? ""
        isPowered = properties["Powered"]?.boolValue ?? false
        roles = properties["Roles"]?.stringArrayValue
        modalias = properties["Modalias"]?.stringValue
    }

    /// Whether it can be an LE central (scan for and connect to readers); nil when BlueZ
    /// does not say (no `Roles` property before BlueZ 5.50).
    public var supportsLECentral: Bool? { roles.map { $0.contains("central") } }

    /// The BlueZ version in ``modalias`` (`5.66`) when it is bluetoothd's default ID
    /// (vendor 1D6B, product 0246); nil otherwise.
    public var bluezVersionFromModalias: String? {
        guard let modalias, modalias.lowercased().hasPrefix("usb:v1d6bp0246d"),
            let code = UInt16(modalias.suffix(4), radix: 16)
        else { return nil }
        return "\(code >> 8).\(code & 0xFF)"
    }

    /// The devices BlueZ currently knows on this adapter (seen earlier, connected, or
    /// found by a running discovery).
    public func knownDevices() async throws(BluetoothError) -> [BluetoothDeviceInfo] {
        try await session.managedObjects().compactMap { path, interfaces in
            guard let properties = interfaces[BlueZNames.deviceInterface],
                var device = BluetoothDeviceInfo(path: path, properties: properties),
                device.adapterPath == self.path
            else { return nil }
            device.batteryPercent = interfaces[BlueZNames.batteryInterface]?["Percentage"]?.byteValue
            return device
        }.sorted { $0.path < $1.path }
    }

    /// A handle on the device at `path` (no D-Bus traffic).
    public func device(at path: DBusObjectPath) -> BluetoothDevice {
        BluetoothDevice(session: session, path: path)
    }

    /// Makes BlueZ forget a device (`Adapter1.RemoveDevice`); it must be rediscovered.
    public func removeDevice(at path: DBusObjectPath) async throws(BluetoothError) {
        try await session.call(
            self.path, BlueZNames.adapterInterface, "RemoveDevice", [.objectPath(path)],
            timeout: .seconds(10), operation: "removing \(path)")
    }

    /// Every device of this adapter BlueZ knows now, then every addition or change
    /// (e.g. `Connected`), without starting a discovery. The stream finishes when the
    /// consumer stops, the bus is lost, or bluetoothd restarts.
    public func deviceUpdates() async throws(BluetoothError) -> AsyncStream<BluetoothDeviceInfo> {
        let events = try await session.events(under: path, interfaces: [BlueZNames.deviceInterface])
        let known = try await knownDevices()
        let (stream, continuation) = AsyncStream.makeStream(of: BluetoothDeviceInfo.self)
        let adapterPath = path
        let pump = Task(executorPreference: session.connection.executor) {
            await DeviceTracker.follow(events: events, known: known, adapterPath: adapterPath) { update in
                if case .success(let device) = update { continuation.yield(device) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in pump.cancel() }
        return stream
    }

    /// Starts an LE discovery (`SetDiscoveryFilter {Transport: le, DuplicateData: true}`,
    /// `StartDiscovery`) and reports matching devices: first those BlueZ already knows,
    /// then every addition or change (name, RSSI, …) live. Discovery stops when the
    /// consumer stops iterating or calls ``BluetoothDiscovery/stop()``. The sequence
    /// throws ``BluetoothError/linkLost(_:)`` if bluetoothd restarts.
    public func discover(_ filter: DiscoveryFilter = DiscoveryFilter()) async throws(BluetoothError)
        -> BluetoothDiscovery
    {
        try await BluetoothDiscovery.start(adapter: self, filter: filter)
    }

    /// A device matching `filter`: one BlueZ has connected already (e.g. left connected
    /// by a process that crashed), else the first a discovery sees advertising (with an
    /// RSSI) within `timeout`. Throws ``BluetoothError/deviceNotFound(_:after:seen:)``,
    /// listing the devices that advertised instead.
    public func find(_ filter: DiscoveryFilter, timeout: Duration) async throws(BluetoothError) -> BluetoothDeviceInfo {
        let everything = try await scan(DiscoveryFilter(), timeout: timeout) { $0.contains(where: filter.matches) }
        if let device = everything.first(where: filter.matches) { return device }
        if Task.isCancelled { throw .cancelled }
        var seen = SeenDevices()
        for device in everything { seen.note(device) }
        throw .deviceNotFound("\(filter.summary) on \(name)", after: timeout, seen: seen)
    }

    /// The devices matching `filter` that BlueZ has connected, then those a discovery sees
    /// advertising (with an RSSI), by address in the order first seen (later reports update
    /// a device), until `done` holds for what was seen or `timeout` passes. `done` runs on
    /// the caller's actor.
    public func scan(
        _ filter: DiscoveryFilter, timeout: Duration, isolation: isolated (any Actor)? = #isolation,
        until done: ([BluetoothDeviceInfo]) -> Bool
    ) async throws(BluetoothError) -> [BluetoothDeviceInfo] {
        var seen: [BluetoothDeviceInfo] = []
        func note(_ device: BluetoothDeviceInfo) {
            guard filter.matches(device) else { return }
            if let index = seen.firstIndex(where: { $0.address == device.address }) {
                seen[index] = device
            } else {
                seen.append(device)
            }
        }
        for device in try await knownDevices() where device.isConnected { note(device) }
        if done(seen) {
            session.logger.debug("device already connected", metadata: ["filter": "\(filter.summary)"])
            return seen
        }
        let discovery = try await discover(filter)
        let clock = session.clock
        let stopAt = clock.elapsed() + timeout
        let timer = Task {
            try? await clock.sleep(stopAt)
            await discovery.stop()
        }
        defer { timer.cancel() }
        do throws(BluetoothError) {
            for try await device in discovery where device.rssi != nil || device.isConnected {
                note(device)
                if done(seen) { break }
            }
        } catch {
            await discovery.stop()
            throw error
        }
        await discovery.stop()
        return seen
    }
}
