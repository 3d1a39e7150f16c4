/// A remote object (bus name + path) on a connection: a small convenience for clients
/// such as the BlueZ layer (`DBusRemoteObject(connection: c, destination: "org.bluez",
/// path: "/org/bluez/hci0")`).
public struct DBusRemoteObject: Sendable {
    public let connection: DBusConnection
    public let destination: String
    public let path: DBusObjectPath

    public init(connection: DBusConnection, destination: String, path: DBusObjectPath) {
        self.connection = connection
        self.destination = destination
        self.path = path
    }

    /// Calls `interface.member` and returns the reply body.
    @discardableResult
    public func call(
        _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [DBusValue] {
        try await connection.call(
            destination: destination, path: path, interface: interface, member: member, body: arguments,
            timeout: timeout)
    }

    /// `Properties.Get`, without the variant.
    public func property(
        _ name: String, interface: String, timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> DBusValue {
        try await connection.getProperty(name, interface: interface, destination: destination, path: path, timeout: timeout)
    }

    /// `Properties.GetAll`, values without variants.
    public func properties(
        interface: String, timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [String: DBusValue] {
        try await connection.getAllProperties(interface: interface, destination: destination, path: path, timeout: timeout)
    }

    /// `Properties.Set`.
    public func setProperty(
        _ name: String, interface: String, to value: DBusValue, timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) {
        try await connection.setProperty(
            name, interface: interface, to: value, destination: destination, path: path, timeout: timeout)
    }

    /// Subscribes to `PropertiesChanged` of this object (optionally of one interface).
    /// Subscribe before reading the initial values so that no change is missed.
    public func propertiesChanged(interface: String? = nil) async throws(DBusError)
        -> AsyncCompactMapSequence<AsyncStream<DBusMessage>, DBusPropertiesChanged>
    {
        let stream = try await connection.signals(
            matching: .propertiesChanged(sender: destination, path: path, interface: interface))
        return stream.compactMap { DBusPropertiesChanged($0) }
    }
}
