/// Follows the `Device1` objects of one adapter through BlueZ's signals.
enum DeviceTracker {
    /// Reports `known`, then every added or changed device of `adapterPath`, until the
    /// events end (bus lost, task cancelled) or `org.bluez` changes owner (reported as
    /// ``BluetoothError/linkLost(_:)``).
    static func follow(
        events: AsyncStream<BlueZEvent>, known: [BluetoothDeviceInfo], adapterPath: DBusObjectPath,
        report: (Result<BluetoothDeviceInfo, BluetoothError>) -> Void
    ) async {
        var devices: [DBusObjectPath: BluetoothDeviceInfo] = [:]
        for device in known {
            devices[device.path] = device
            report(.success(device))
        }
        for await event in events {
            var updated: BluetoothDeviceInfo?
            switch event {
            case .interfacesAdded(let added):
                guard let properties = added.interfaces[BlueZNames.deviceInterface],
                    let device = BluetoothDeviceInfo(path: added.objectPath, properties: properties),
                    device.adapterPath == adapterPath
                else { continue }
                updated = device
            case .propertiesChanged(let change):
                guard change.interface == BlueZNames.deviceInterface, var device = devices[change.path] else { continue }
                device.apply(changed: change.changed, invalidated: change.invalidated)
                updated = device
            case .interfacesRemoved(let removed):
                if removed.interfaces.contains(BlueZNames.deviceInterface) { devices[removed.objectPath] = nil }
            case .ownerChanged(let change):
                report(.failure(.linkLost(.bluetoothdRestarted(newOwner: change.newOwner))))
                return
            }
            if let updated {
                devices[updated.path] = updated
                report(.success(updated))
            }
        }
    }
}
