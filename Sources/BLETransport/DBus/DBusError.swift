/// Every failure of the D-Bus layer.
///
/// A D-Bus error reply keeps its error name (`org.bluez.Error.InProgress`,
/// `org.freedesktop.DBus.Error.ServiceUnknown`, …) and message in ``remote(name:message:)``.
/// Method handlers of exported objects throw ``remote(name:message:)`` to answer with a
/// specific D-Bus error; any other error becomes `org.freedesktop.DBus.Error.Failed`.
public enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer answered with a D-Bus error.
    case remote(name: String, message: String)
    /// No reply arrived before the call's deadline. The text names the call.
    case timeout(String)
    /// The connection is closed or was lost (bus daemon gone, socket closed).
    case disconnected(String)
    /// The calling task was cancelled.
    case cancelled
    /// A value or name could not be marshalled or a reply did not have the expected type.
    case marshalling(String)
    /// Opening, authenticating or registering the connection failed.
    case connectionFailed(name: String, message: String)
    /// libdbus itself could not be loaded: no connection can be opened.
    case libraryUnavailable(DBusLibraryError)

    /// The D-Bus error name of a ``remote(name:message:)`` error.
    public var name: String? {
        if case .remote(let name, _) = self { return name }
        return nil
    }

    /// Whether this is a D-Bus error reply with the given name.
    public func isRemote(_ errorName: String) -> Bool { name == errorName }

    public var description: String {
        switch self {
        case .remote(let name, let message):
            message.isEmpty ? "D-Bus error \(name)" : "D-Bus error \(name): \(message)"
        case .timeout(let call): "D-Bus call timed out: \(call)"
        case .disconnected(let reason): "D-Bus connection lost: \(reason)"
        case .cancelled: "D-Bus call cancelled"
        case .marshalling(let detail): "D-Bus marshalling error: \(detail)"
        case .connectionFailed(let name, let message): "D-Bus connection failed: \(name): \(message)"
        case .libraryUnavailable(let error): error.description
        }
    }

    /// Convenience for method handlers: `throw DBusError.failed("Not connected")`.
    public static func failed(_ message: String) -> DBusError {
        .remote(name: DBusErrorName.failed, message: message)
    }
}

/// Well-known D-Bus error names.
public enum DBusErrorName {
    public static let failed = "org.freedesktop.DBus.Error.Failed"
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let timeout = "org.freedesktop.DBus.Error.Timeout"
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
    /// The bus tried to start the service (activation) and its launch helper failed.
    public static let spawnChildExited = "org.freedesktop.DBus.Error.Spawn.ChildExited"
    /// The bus has no activatable service of that name.
    public static let spawnServiceNotFound = "org.freedesktop.DBus.Error.Spawn.ServiceNotFound"

    /// What a service answers a call to an object it no longer exports: bluetoothd says
    /// `UnknownObject` (or, from older code paths, that the method, interface or arguments
    /// are unknown there).
    package static let objectGone: Set<String> = [unknownObject, unknownMethod, unknownInterface, invalidArgs]
}

/// Names of the bus daemon and the standard interfaces.
public enum DBusStandard {
    public static let busName = "org.freedesktop.DBus"
    public static let busPath: DBusObjectPath = "/org/freedesktop/DBus"
    public static let busInterface = "org.freedesktop.DBus"
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
    public static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    public static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    public static let peerInterface = "org.freedesktop.DBus.Peer"
    static let localPath: DBusObjectPath = "/org/freedesktop/DBus/Local"
    static let localInterface = "org.freedesktop.DBus.Local"
}
