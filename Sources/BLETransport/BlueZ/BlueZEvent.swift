/// The signals a BlueZ client follows, merged into one ordered stream per subscription:
/// everything `org.bluez` emits, plus `NameOwnerChanged` of `org.bluez`.
enum BlueZEvent: Sendable {
    case interfacesAdded(DBusInterfacesAdded)
    case interfacesRemoved(DBusInterfacesRemoved)
    case propertiesChanged(DBusPropertiesChanged)
    case ownerChanged(DBusNameOwnerChanged)

    init?(_ message: DBusMessage) {
        if let signal = DBusPropertiesChanged(message) {
            self = .propertiesChanged(signal)
        } else if let signal = DBusInterfacesAdded(message) {
            self = .interfacesAdded(signal)
        } else if let signal = DBusInterfacesRemoved(message) {
            self = .interfacesRemoved(signal)
        } else if let signal = DBusNameOwnerChanged(message) {
            self = .ownerChanged(signal)
        } else {
            return nil
        }
    }

    /// Subscribes (AddMatch) before returning, so state read afterwards misses nothing.
    /// The stream finishes when the bus connection ends; dropping it unsubscribes.
    static func subscribe(on connection: DBusConnection) async throws(BluetoothError) -> AsyncStream<BlueZEvent> {
        let owner: AsyncStream<DBusMessage>
        let bluez: AsyncStream<DBusMessage>
        do throws(DBusError) {
            owner = try await connection.signals(matching: .nameOwnerChanged(name: BlueZNames.service))
            bluez = try await connection.signals(matching: DBusMatchRule(sender: BlueZNames.service))
        } catch {
            throw BluetoothError(error, operation: "subscribing to BlueZ signals")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: BlueZEvent.self)
        let pumps = [owner, bluez].map { source in
            Task {
                for await message in source {
                    if let event = BlueZEvent(message) { continuation.yield(event) }
                }
                continuation.finish()
            }
        }
        continuation.onTermination = { _ in pumps.forEach { $0.cancel() } }
        return stream
    }
}
