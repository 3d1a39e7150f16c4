/// The signals a BlueZ client follows: what `org.bluez` emits about its objects, and
/// `NameOwnerChanged` of `org.bluez` (see ``BlueZSignalRouter``).
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
}
