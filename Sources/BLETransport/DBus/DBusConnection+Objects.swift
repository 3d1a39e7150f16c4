/// Exporting objects (the peripheral side: GATT applications, LE advertisements).
extension DBusConnection {
    /// Exports `interfaces` at `path` (adding to an object already there). Every
    /// exported object also answers `org.freedesktop.DBus.Introspectable` (generated XML),
    /// `org.freedesktop.DBus.Properties` (Get/GetAll/Set on the stored values) and
    /// `org.freedesktop.DBus.Peer` (by libdbus). If an object manager
    /// (``addObjectManager(at:)``) is an ancestor of `path`, it emits `InterfacesAdded`.
    ///
    /// Calls to one object are handled one at a time in arrival order on the object's own
    /// task.
    public func export(_ path: DBusObjectPath, interfaces: [DBusInterface]) throws(DBusError) {
        try objects.export(path, interfaces: interfaces)
    }

    /// Removes the given interfaces (all if nil) from the object at `path`; emits
    /// `InterfacesRemoved` from the nearest ancestor object manager.
    public func unexport(_ path: DBusObjectPath, interfaces: [String]? = nil) {
        objects.unexport(path, interfaces: interfaces)
    }

    /// Makes the object at `path` an `org.freedesktop.DBus.ObjectManager` for all
    /// objects below it (GetManagedObjects, InterfacesAdded/Removed). BlueZ's
    /// `RegisterApplication` expects this at the application's root path.
    public func addObjectManager(at path: DBusObjectPath) throws(DBusError) {
        try objects.addObjectManager(at: path)
    }

    /// Changes a property of an exported object and emits `PropertiesChanged` (unless
    /// the property opted out). The signal is emitted even if the value did not change
    /// (a repeated GATT notification must go out).
    public func setProperty(
        _ name: String, interface: String, path: DBusObjectPath, to value: DBusValue
    ) throws(DBusError) {
        try objects.setProperties([name: value], interface: interface, path: path)
    }

    /// Changes several properties of one interface with a single `PropertiesChanged`.
    public func setProperties(
        _ values: [String: DBusValue], interface: String, path: DBusObjectPath
    ) throws(DBusError) {
        try objects.setProperties(values, interface: interface, path: path)
    }

    /// The stored value of a property of an exported object.
    public func propertyValue(_ name: String, interface: String, path: DBusObjectPath) -> DBusValue? {
        objects.propertyValue(name, interface: interface, path: path)
    }

    /// The paths of all exported objects.
    public var exportedPaths: [DBusObjectPath] { objects.exportedPaths }
}

/// Client-side helpers for the standard interfaces of remote objects.
extension DBusConnection {
    /// `org.freedesktop.DBus.Properties.Get`; returns the value without its variant.
    public func getProperty(
        _ name: String, interface: String, destination: String, path: DBusObjectPath,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> DBusValue {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandard.propertiesInterface, member: "Get",
            body: [.string(interface), .string(name)], timeout: timeout)
        guard let value = reply.first else { throw .marshalling("empty reply to Properties.Get") }
        return value.unwrappingVariants
    }

    /// `org.freedesktop.DBus.Properties.GetAll`.
    public func getAllProperties(
        interface: String, destination: String, path: DBusObjectPath,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [String: DBusValue] {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandard.propertiesInterface, member: "GetAll",
            body: [.string(interface)], timeout: timeout)
        guard let properties = reply.first?.stringDictionaryValue else {
            throw .marshalling("unexpected reply to Properties.GetAll")
        }
        return properties
    }

    /// `org.freedesktop.DBus.Properties.Set` (the value is wrapped in a variant).
    public func setProperty(
        _ name: String, interface: String, to value: DBusValue, destination: String, path: DBusObjectPath,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) {
        _ = try await call(
            destination: destination, path: path, interface: DBusStandard.propertiesInterface, member: "Set",
            body: [.string(interface), .string(name), .variant(value.unwrappingVariants)], timeout: timeout)
    }

    /// `org.freedesktop.DBus.ObjectManager.GetManagedObjects`
    /// (BlueZ: destination `org.bluez`, path `/`).
    public func managedObjects(
        destination: String, path: DBusObjectPath = .root, timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [DBusObjectPath: [String: [String: DBusValue]]] {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandard.objectManagerInterface,
            member: "GetManagedObjects", timeout: timeout)
        guard let objects = reply.first?.managedObjectsValue else {
            throw .marshalling("unexpected reply to GetManagedObjects")
        }
        return objects
    }

    /// `org.freedesktop.DBus.Introspectable.Introspect`.
    public func introspect(
        destination: String, path: DBusObjectPath, timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> String {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandard.introspectableInterface,
            member: "Introspect", timeout: timeout)
        guard let xml = reply.first?.stringValue else { throw .marshalling("unexpected Introspect reply") }
        return xml
    }
}
