/// The bluetoothd a session talks to: the connection owning `org.bluez` on the bus.
public struct BluetoothDaemon: Sendable, Hashable {
    /// Its unique bus name, e.g. `:1.3`.
    public var uniqueName: String
    /// Its process ID, when the bus says (nil for a bus that does not know it).
    public var processID: UInt32?

    /// The owner `uniqueName`, process `processID`.
    public init(uniqueName: String, processID: UInt32?) {
        self.uniqueName = uniqueName
        self.processID = processID
    }
}

extension BluetoothSession {
    /// Who owns `org.bluez`, asking the bus only (no call reaches bluetoothd, so the bus
    /// never tries to start it). Throws ``BluetoothError/bluetoothdNotRunning(_:)`` when
    /// nobody does.
    public func bluetoothd() async throws(BluetoothError) -> BluetoothDaemon {
        let owner: String
        do throws(DBusError) {
            owner = try await connection.nameOwner(BlueZNames.service)
        } catch {
            throw BluetoothError(error, operation: "asking the bus who owns \(BlueZNames.service)")
        }
        let processID = try? await connection.processID(of: owner)
        return BluetoothDaemon(uniqueName: owner, processID: processID)
    }
}
