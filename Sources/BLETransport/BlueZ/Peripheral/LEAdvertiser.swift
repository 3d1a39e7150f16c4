/// The content of an LE advertisement (`org.bluez.LEAdvertisement1`).
public struct LEAdvertisement: Sendable, Hashable {
    /// `peripheral` (connectable) or `broadcast`.
    public var type: String
    public var localName: String?
    public var serviceUUIDs: [BluetoothUUID]

    public init(type: String = "peripheral", localName: String? = nil, serviceUUIDs: [BluetoothUUID] = []) {
        self.type = type
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
    }
}

/// Advertisements registered with BlueZ (`LEAdvertisingManager1.RegisterAdvertisement`).
///
/// With `rotating`, two copies are registered with `Duration` 1, so the kernel rotates
/// them every second and sends a fresh advertising report each time: btvirt (and some
/// controllers) otherwise send one report only, which a starting discovery can miss.
public final class LEAdvertiser: Sendable {
    public let adapter: BluetoothAdapter
    /// The registered advertisement objects.
    public let paths: [DBusObjectPath]

    private init(adapter: BluetoothAdapter, paths: [DBusObjectPath]) {
        self.adapter = adapter
        self.paths = paths
    }

    /// Exports and registers `advertisement` on `adapter`.
    public static func register(
        _ advertisement: LEAdvertisement, on adapter: BluetoothAdapter,
        at root: DBusObjectPath = "/cardreaderkit/advertisement", rotating: Bool = true
    ) async throws(BluetoothError) -> LEAdvertiser {
        let connection = adapter.session.connection
        var registered: [DBusObjectPath] = []
        for index in 0..<(rotating ? 2 : 1) {
            let path = root.appending("adv\(index)")
            var properties = [DBusProperty("Type", value: .string(advertisement.type))]
            if let name = advertisement.localName { properties.append(DBusProperty("LocalName", value: .string(name))) }
            if !advertisement.serviceUUIDs.isEmpty {
                properties.append(DBusProperty("ServiceUUIDs", value: .stringArray(advertisement.serviceUUIDs.map(\.uuidString))))
            }
            if rotating { properties.append(DBusProperty("Duration", value: .uint16(1))) }
            do throws(BluetoothError) {
                do throws(DBusError) {
                    try connection.export(path, interfaces: [
                        DBusInterface(
                            BlueZNames.advertisementInterface,
                            methods: [DBusMethod("Release") { _ in [] }], properties: properties)
                    ])
                } catch {
                    throw BluetoothError(error, operation: "exporting an advertisement")
                }
                try await adapter.session.call(
                    adapter.path, BlueZNames.advertisingManagerInterface, "RegisterAdvertisement",
                    [.objectPath(path), .stringVariantDictionary([:])], timeout: .seconds(15),
                    operation: "RegisterAdvertisement on \(adapter.name)")
                registered.append(path)
            } catch {
                if error.code == .cancelled {
                    // A caller that gave up gets none, though bluetoothd may have taken them.
                    await LEAdvertiser(adapter: adapter, paths: registered + [path]).unregister()
                    throw error
                }
                connection.unexport(path)
                // A controller with a single advertising slot still gets one advertisement.
                if index > 0 { break }
                throw error
            }
        }
        return LEAdvertiser(adapter: adapter, paths: registered)
    }

    /// Unregisters and removes the advertisements.
    public func unregister() async {
        for path in paths {
            await adapter.session.cleanUp(
                adapter.path, BlueZNames.advertisingManagerInterface, "UnregisterAdvertisement", [.objectPath(path)],
                timeout: .seconds(5))
            adapter.session.connection.unexport(path)
        }
    }
}
