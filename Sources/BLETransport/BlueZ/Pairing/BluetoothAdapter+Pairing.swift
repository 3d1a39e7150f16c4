extension BluetoothAdapter {
    /// Whether the adapter is bondable now (`Adapter1.Pairable`): when it is not, a pairing
    /// it starts keeps no keys, and a peer's pairing request that asks for a bond is
    /// refused by the kernel (SMP Pairing Not Supported, 0x05).
    public func isPairable() async throws(BluetoothError) -> Bool {
        let value: DBusValue
        do throws(DBusError) {
            value = try await session.connection.getProperty(
                "Pairable", interface: BlueZNames.adapterInterface, destination: BlueZNames.service, path: path,
                timeout: .seconds(10))
        } catch {
            throw BluetoothError(error, operation: "reading \(name)'s Pairable")
        }
        guard let pairable = value.boolValue else { throw .unexpectedReply("\(name) Pairable is not a Boolean") }
        return pairable
    }

    /// Makes the adapter bondable or not (`Adapter1.Pairable`). The setting is the
    /// adapter's, for every program on this bluetoothd.
    public func setPairable(_ pairable: Bool) async throws(BluetoothError) {
        do throws(DBusError) {
            try await session.connection.setProperty(
                "Pairable", interface: BlueZNames.adapterInterface, to: .bool(pairable), destination: BlueZNames.service,
                path: path, timeout: .seconds(10))
        } catch {
            throw BluetoothError(error, operation: "setting \(name)'s Pairable to \(pairable)")
        }
    }
}
