/// A GATT server application registered with BlueZ (`GattManager1.RegisterApplication`):
/// services and characteristics exported under one object-manager root.
///
/// Notifications go out with ``notify(_:value:)``, which sets the characteristic's
/// `Value` and emits `PropertiesChanged`; BlueZ forwards it to subscribed centrals.
public final class GattApplication: Sendable {
    public let adapter: BluetoothAdapter
    /// The object-manager root, e.g. `/cardreaderkit/gatt`.
    public let root: DBusObjectPath
    private let characteristicPaths: [BluetoothUUID: DBusObjectPath]

    private init(adapter: BluetoothAdapter, root: DBusObjectPath, characteristicPaths: [BluetoothUUID: DBusObjectPath]) {
        self.adapter = adapter
        self.root = root
        self.characteristicPaths = characteristicPaths
    }

    /// Exports `services` under `root` and registers them on `adapter`.
    public static func register(
        _ services: [GattServiceDefinition], on adapter: BluetoothAdapter, at root: DBusObjectPath = "/cardreaderkit/gatt"
    ) async throws(BluetoothError) -> GattApplication {
        let connection = adapter.session.connection
        var paths: [BluetoothUUID: DBusObjectPath] = [:]
        do throws(DBusError) {
            try connection.addObjectManager(at: root)
            for (serviceIndex, service) in services.enumerated() {
                let servicePath = root.appending("service\(serviceIndex)")
                let characteristicPaths = service.characteristics.indices.map { servicePath.appending("char\($0)") }
                try connection.export(servicePath, interfaces: [
                    DBusInterface(BlueZNames.gattServiceInterface, properties: [
                        DBusProperty("UUID", value: .string(service.uuid.uuidString)),
                        DBusProperty("Primary", value: .bool(service.isPrimary)),
                        DBusProperty("Characteristics", value: .objectPathArray(characteristicPaths)),
                    ])
                ])
                for (characteristic, path) in zip(service.characteristics, characteristicPaths) {
                    try connection.export(path, interfaces: [
                        characteristicInterface(characteristic, path: path, service: servicePath, connection: connection)
                    ])
                    paths[characteristic.uuid] = path
                }
            }
        } catch {
            connection.unexport(root)
            for path in connection.exportedPaths where root.isAncestor(of: path) { connection.unexport(path) }
            throw BluetoothError(error, operation: "exporting the GATT application")
        }
        let application = GattApplication(adapter: adapter, root: root, characteristicPaths: paths)
        do throws(BluetoothError) {
            try await adapter.session.call(
                adapter.path, BlueZNames.gattManagerInterface, "RegisterApplication",
                [.objectPath(root), .stringVariantDictionary([:])], timeout: .seconds(15),
                operation: "RegisterApplication on \(adapter.name)")
        } catch {
            // A caller that gave up may have been registered all the same.
            if error.code == .cancelled { await application.unregister() } else { application.unexportAll() }
            throw error
        }
        return application
    }

    private static func characteristicInterface(
        _ definition: GattCharacteristicDefinition, path: DBusObjectPath, service: DBusObjectPath,
        connection: DBusConnection
    ) -> DBusInterface {
        let interface = BlueZNames.gattCharacteristicInterface
        return DBusInterface(
            interface,
            methods: [
                DBusMethod("ReadValue", in: "a{sv}", out: "ay") { call in
                    let request = GattRequest(options: call.arguments.first?.stringDictionaryValue ?? [:])
                    guard let onRead = definition.onRead else {
                        return [connection.propertyValue("Value", interface: interface, path: path) ?? .bytes([])]
                    }
                    do throws(GattRequestError) {
                        return [.bytes(try await onRead(request))]
                    } catch {
                        throw DBusError.remote(name: error.name, message: error.message)
                    }
                },
                DBusMethod("WriteValue", in: "aya{sv}", out: "") { call in
                    guard let value = call.arguments.first?.bytesValue else { return [] }
                    let request = GattRequest(options: call.arguments.last?.stringDictionaryValue ?? [:])
                    guard let onWrite = definition.onWrite else {
                        throw DBusError.remote(name: BluetoothError.Code.notSupported.rawValue, message: "not writable")
                    }
                    do throws(GattRequestError) {
                        try await onWrite(value, request)
                    } catch {
                        throw DBusError.remote(name: error.name, message: error.message)
                    }
                    return []
                },
                // BlueZ 5.66 calls StartNotify without arguments; later versions may pass options.
                DBusMethod("StartNotify", in: nil, out: "") { _ in
                    await definition.onNotifyChange?(true)
                    return []
                },
                DBusMethod("StopNotify", in: nil, out: "") { _ in
                    await definition.onNotifyChange?(false)
                    return []
                },
            ],
            properties: [
                DBusProperty("UUID", value: .string(definition.uuid.uuidString)),
                // Must be an object path: as a string BlueZ finds "No valid service object".
                DBusProperty("Service", value: .objectPath(service)),
                DBusProperty("Flags", value: .stringArray(definition.flags)),
                DBusProperty("Value", value: .bytes(definition.initialValue)),
            ])
    }

    /// Sends a notification: sets `Value` of the characteristic `uuid` and emits
    /// `PropertiesChanged` (even when the value repeats).
    public func notify(_ uuid: BluetoothUUID, value: [UInt8]) throws(BluetoothError) {
        guard let path = characteristicPaths[uuid] else {
            throw .missingAttribute("the GATT application has no characteristic \(uuid)")
        }
        do throws(DBusError) {
            try adapter.session.connection.setProperty(
                "Value", interface: BlueZNames.gattCharacteristicInterface, path: path, to: .bytes(value))
        } catch {
            throw BluetoothError(error, operation: "notifying \(uuid)")
        }
    }

    /// Unregisters the application from BlueZ and removes its objects.
    public func unregister() async {
        await adapter.session.cleanUp(
            adapter.path, BlueZNames.gattManagerInterface, "UnregisterApplication", [.objectPath(root)],
            timeout: .seconds(5))
        unexportAll()
    }

    private func unexportAll() {
        let connection = adapter.session.connection
        for path in connection.exportedPaths.sorted().reversed() where root.contains(path) {
            connection.unexport(path)
        }
    }
}
