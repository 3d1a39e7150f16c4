/// An incoming method call, as seen by a method handler.
public struct DBusMethodCall: Sendable {
    public let message: DBusMessage
    public var arguments: [DBusValue] { message.body }
    /// The unique name of the caller.
    public var sender: String? { message.sender }
    public var path: DBusObjectPath { message.path ?? .root }
    public var interface: String? { message.interface }
    public var member: String { message.member ?? "" }

    public init(message: DBusMessage) { self.message = message }
}

/// A method of an exported interface.
public struct DBusMethod: Sendable {
    public typealias Handler = @Sendable (DBusMethodCall) async throws -> [DBusValue]

    public var name: String
    /// The argument signature; calls with other arguments get
    /// `org.freedesktop.DBus.Error.InvalidArgs`. `nil` accepts anything.
    public var inSignature: DBusSignature?
    /// The reply signature; a handler returning something else answers
    /// `org.freedesktop.DBus.Error.Failed`. `nil` allows anything.
    public var outSignature: DBusSignature?
    public var inArgumentNames: [String]
    public var outArgumentNames: [String]
    /// Runs on the object's worker task (calls to one object are handled one at a time,
    /// in arrival order). Throw ``DBusError/remote(name:message:)`` to answer with a
    /// specific D-Bus error.
    public var handler: Handler

    public init(
        _ name: String, in inSignature: DBusSignature? = "", out outSignature: DBusSignature? = "",
        inArgumentNames: [String] = [], outArgumentNames: [String] = [], handler: @escaping Handler
    ) {
        self.name = name
        self.inSignature = inSignature
        self.outSignature = outSignature
        self.inArgumentNames = inArgumentNames
        self.outArgumentNames = outArgumentNames
        self.handler = handler
    }
}

/// A property of an exported interface. Values are stored by the connection; change
/// them with ``DBusConnection/setProperty(_:interface:path:to:)``, which emits
/// `PropertiesChanged`.
public struct DBusProperty: Sendable {
    public enum Access: String, Sendable {
        case read
        case write
        case readWrite = "readwrite"

        var isReadable: Bool { self != .write }
        var isWritable: Bool { self != .read }
    }

    public typealias Setter = @Sendable (DBusValue) async throws -> Void

    public var name: String
    public var signature: DBusSignature
    public var access: Access
    /// The initial value (its signature must equal `signature`).
    public var value: DBusValue
    /// Whether changes are announced with `PropertiesChanged`.
    public var emitsChangedSignal: Bool
    /// Called for a remote `Set` before the value is stored; throw to refuse it.
    public var setter: Setter?

    public init(
        _ name: String, value: DBusValue, access: Access = .read, emitsChangedSignal: Bool = true,
        setter: Setter? = nil
    ) {
        self.name = name
        self.signature = value.signature
        self.access = access
        self.value = value
        self.emitsChangedSignal = emitsChangedSignal
        self.setter = setter
    }
}

/// A signal an interface declares (for introspection).
public struct DBusSignalDescription: Sendable {
    public var name: String
    public var signature: DBusSignature
    public var argumentNames: [String]

    public init(_ name: String, signature: DBusSignature = "", argumentNames: [String] = []) {
        self.name = name
        self.signature = signature
        self.argumentNames = argumentNames
    }
}

/// An interface implemented by an exported object.
public struct DBusInterface: Sendable {
    public var name: String
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignalDescription]

    public init(
        _ name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [],
        signals: [DBusSignalDescription] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    func validate() throws(DBusError) {
        guard DBusNameValidation.isValidInterfaceName(name) else {
            throw .marshalling("invalid interface name '\(name)'")
        }
        guard !DBusObjectRegistry.standardInterfaces.contains(name) else {
            throw .marshalling("interface \(name) is provided by the connection")
        }
        for method in methods {
            guard DBusNameValidation.isValidMemberName(method.name) else {
                throw .marshalling("invalid method name '\(method.name)'")
            }
            if let signature = method.inSignature, !signature.isValid {
                throw .marshalling("invalid in-signature of \(method.name)")
            }
            if let signature = method.outSignature, !signature.isValid {
                throw .marshalling("invalid out-signature of \(method.name)")
            }
        }
        for property in properties {
            guard DBusNameValidation.isValidMemberName(property.name) else {
                throw .marshalling("invalid property name '\(property.name)'")
            }
            guard property.value.signature == property.signature else {
                throw .marshalling("property \(property.name): value does not have signature \(property.signature)")
            }
            try property.value.validate()
        }
        for signal in signals {
            guard DBusNameValidation.isValidMemberName(signal.name), signal.signature.isValid else {
                throw .marshalling("invalid signal '\(signal.name)'")
            }
        }
    }
}
