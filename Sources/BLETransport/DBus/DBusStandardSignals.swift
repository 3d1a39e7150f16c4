/// Typed views of the standard signals a BlueZ client consumes. Each initializer returns
/// nil for a message that is not that signal or has an unexpected body, so they work
/// as `stream.compactMap(DBusPropertiesChanged.init)`.

/// `org.freedesktop.DBus.Properties.PropertiesChanged (s a{sv} as)`.
public struct DBusPropertiesChanged: Sendable, Hashable {
    public var path: DBusObjectPath
    public var sender: String?
    public var interface: String
    /// New values, without their variant wrapper.
    public var changed: [String: DBusValue]
    public var invalidated: [String]

    public init?(_ message: DBusMessage) {
        guard message.kind == .signal, message.interface == DBusStandard.propertiesInterface,
            message.member == "PropertiesChanged", let path = message.path, message.body.count == 3,
            case .string(let interface) = message.body[0],
            let changed = message.body[1].stringDictionaryValue,
            let invalidated = message.body[2].stringArrayValue
        else { return nil }
        self.path = path
        self.sender = message.sender
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
    }
}

/// `org.freedesktop.DBus.ObjectManager.InterfacesAdded (o a{sa{sv}})`.
public struct DBusInterfacesAdded: Sendable, Hashable {
    /// The object manager that emitted the signal.
    public var managerPath: DBusObjectPath
    public var sender: String?
    /// The object that gained interfaces.
    public var objectPath: DBusObjectPath
    /// Interface name → properties (values without variant wrapper).
    public var interfaces: [String: [String: DBusValue]]

    public init?(_ message: DBusMessage) {
        guard message.kind == .signal, message.interface == DBusStandard.objectManagerInterface,
            message.member == "InterfacesAdded", let managerPath = message.path, message.body.count == 2,
            case .objectPath(let objectPath) = message.body[0],
            let interfaces = message.body[1].interfacesAndPropertiesValue
        else { return nil }
        self.managerPath = managerPath
        self.sender = message.sender
        self.objectPath = objectPath
        self.interfaces = interfaces
    }
}

/// `org.freedesktop.DBus.ObjectManager.InterfacesRemoved (o as)`.
public struct DBusInterfacesRemoved: Sendable, Hashable {
    public var managerPath: DBusObjectPath
    public var sender: String?
    public var objectPath: DBusObjectPath
    public var interfaces: [String]

    public init?(_ message: DBusMessage) {
        guard message.kind == .signal, message.interface == DBusStandard.objectManagerInterface,
            message.member == "InterfacesRemoved", let managerPath = message.path, message.body.count == 2,
            case .objectPath(let objectPath) = message.body[0],
            let interfaces = message.body[1].stringArrayValue
        else { return nil }
        self.managerPath = managerPath
        self.sender = message.sender
        self.objectPath = objectPath
        self.interfaces = interfaces
    }
}

/// `org.freedesktop.DBus.NameOwnerChanged (s s s)`; empty owners become nil.
public struct DBusNameOwnerChanged: Sendable, Hashable {
    public var name: String
    public var oldOwner: String?
    public var newOwner: String?

    public init?(_ message: DBusMessage) {
        guard message.kind == .signal, message.interface == DBusStandard.busInterface,
            message.member == "NameOwnerChanged", message.body.count == 3,
            case .string(let name) = message.body[0], case .string(let old) = message.body[1],
            case .string(let new) = message.body[2]
        else { return nil }
        self.name = name
        self.oldOwner = old.isEmpty ? nil : old
        self.newOwner = new.isEmpty ? nil : new
    }
}
