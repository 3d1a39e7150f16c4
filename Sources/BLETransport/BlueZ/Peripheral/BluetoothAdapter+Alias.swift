extension BluetoothAdapter {
    /// The adapter's name as peers see it (`Adapter1.Alias`): bluetoothd gives it as the
    /// GAP Device Name, which a central reads after connecting and shows from then on.
    public func alias() async throws(BluetoothError) -> String {
        do throws(DBusError) {
            let value = try await session.connection.getProperty(
                "Alias", interface: BlueZNames.adapterInterface, destination: BlueZNames.service, path: path,
                timeout: .seconds(10))
            return value.stringValue ?? ""
        } catch {
            throw BluetoothError(error, operation: "reading \(name)'s Alias")
        }
    }

    /// Sets ``alias()``; an empty alias makes bluetoothd use the system's name again.
    public func setAlias(_ alias: String) async throws(BluetoothError) {
        do throws(DBusError) {
            try await session.connection.setProperty(
                "Alias", interface: BlueZNames.adapterInterface, to: .string(alias), destination: BlueZNames.service,
                path: path, timeout: .seconds(10))
        } catch {
            throw BluetoothError(error, operation: "setting \(name)'s Alias")
        }
    }
}
