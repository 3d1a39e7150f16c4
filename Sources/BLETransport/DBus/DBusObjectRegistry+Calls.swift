import Locking
import Logging

/// Incoming method calls: routed to their object's worker, answered from its handlers or
/// the standard interfaces (Properties, Introspectable, Peer, ObjectManager).
extension DBusObjectRegistry {
    /// From the router task, in arrival order.
    func route(_ call: DBusMessage) {
        let path = call.path ?? .root
        let (inbox, xml): (AsyncStream<DBusMessage>.Continuation?, String?) = state.withLock { state in
            if let object = state.objects[path] { return (object.inbox, nil) }
            // Not an object: intermediate nodes still answer Introspect with their children.
            let children = Self.children(of: path, in: state.objects)
            guard !children.isEmpty || path == .root else { return (nil, nil) }
            return (nil, DBusIntrospection.xml(interfaces: [], isObjectManager: false, isObject: false, children: children))
        }
        if let inbox {
            inbox.yield(call)
            return
        }
        if let xml, call.member == "Introspect",
            call.interface == nil || call.interface == DBusStandard.introspectableInterface
        {
            reply(call, [.string(xml)])
            return
        }
        replyError(call, DBusErrorName.unknownObject, "No such object path '\(path.rawValue)'")
    }

    enum Lookup {
        case introspect(String)
        case managedObjects(DBusValue)
        case method(DBusMethod)
        case failure(String, String)
    }

    /// On the object's worker task.
    func handle(_ call: DBusMessage, at path: DBusObjectPath) async {
        if call.interface == DBusStandard.propertiesInterface {
            await handleProperties(call, at: path)
            return
        }
        switch state.withLock({ Self.lookup(call, at: path, in: $0) }) {
        case .introspect(let xml):
            reply(call, [.string(xml)])
        case .managedObjects(let objects):
            reply(call, [objects])
        case .failure(let name, let message):
            replyError(call, name, message)
        case .method(let method):
            await invoke(method, for: call)
        }
    }

    /// What answers `call` at `path`: the standard Introspectable and ObjectManager methods,
    /// or the object's own method (the first with that name when no interface is given).
    private static func lookup(_ call: DBusMessage, at path: DBusObjectPath, in state: State) -> Lookup {
        let member = call.member ?? ""
        guard let object = state.objects[path] else {
            return .failure(DBusErrorName.unknownObject, "No such object path '\(path.rawValue)'")
        }
        let interface = call.interface
        if member == "Introspect" && (interface == nil || interface == DBusStandard.introspectableInterface) {
            return .introspect(DBusIntrospection.xml(
                interfaces: object.interfaceOrder.compactMap { object.interfaces[$0] },
                isObjectManager: object.isObjectManager, isObject: true,
                children: children(of: path, in: state.objects)))
        }
        if object.isObjectManager, member == "GetManagedObjects",
            interface == nil || interface == DBusStandard.objectManagerInterface
        {
            let entries = state.objects.filter { path.isAncestor(of: $0.key) && !$0.value.interfaceOrder.isEmpty }
                .sorted { $0.key < $1.key }
                .map { DBusDictionaryEntry(
                    key: .objectPath($0.key), value: interfacesAndProperties($0.value, names: $0.value.interfaceOrder)) }
            return .managedObjects(.dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", entries: entries))
        }
        if let interface {
            guard let definition = object.interfaces[interface] else {
                return .failure(DBusErrorName.unknownInterface, "No interface \(interface) at \(path.rawValue)")
            }
            guard let method = definition.methods.first(where: { $0.name == member }) else {
                return .failure(DBusErrorName.unknownMethod, "No method \(member) in \(interface)")
            }
            return .method(method)
        }
        for name in object.interfaceOrder {
            if let method = object.interfaces[name]?.methods.first(where: { $0.name == member }) {
                return .method(method)
            }
        }
        return .failure(DBusErrorName.unknownMethod, "No method \(member) at \(path.rawValue)")
    }

    /// Runs `method`'s handler if the arguments have its signature, and checks its result's.
    private func invoke(_ method: DBusMethod, for call: DBusMessage) async {
        if let expected = method.inSignature, call.signature != expected {
            replyError(
                call, DBusErrorName.invalidArgs,
                "\(method.name) takes '\(expected.rawValue)', got '\(call.signature.rawValue)'")
            return
        }
        do {
            let result = try await method.handler(DBusMethodCall(message: call))
            if let expected = method.outSignature, DBusValue.signature(of: result) != expected {
                logger.error("D-Bus handler \(method.name) returned '\(DBusValue.signature(of: result))', declared '\(expected)'")
                replyError(call, DBusErrorName.failed, "The handler returned a value of the wrong type")
                return
            }
            reply(call, result)
        } catch {
            replyError(call, error)
        }
    }

    /// `org.freedesktop.DBus.Properties`: Get, GetAll and Set.
    func handleProperties(_ call: DBusMessage, at path: DBusObjectPath) async {
        let args = call.body
        switch (call.member ?? "", call.signature.rawValue) {
        case ("Get", "ss"):
            getProperty(call, at: path, interface: args[0].stringValue ?? "", name: args[1].stringValue ?? "")
        case ("GetAll", "s"):
            getAllProperties(call, at: path, interface: args[0].stringValue ?? "")
        case ("Set", "ssv"):
            guard case .variant(let value) = args[2] else { return }
            await setProperty(call, at: path, interface: args[0].stringValue ?? "", name: args[1].stringValue ?? "", to: value)
        case ("Get", _), ("GetAll", _), ("Set", _):
            replyError(call, DBusErrorName.invalidArgs, "Wrong arguments '\(call.signature.rawValue)'")
        default:
            replyError(call, DBusErrorName.unknownMethod, "No method \(call.member ?? "") in \(DBusStandard.propertiesInterface)")
        }
    }

    private func getProperty(_ call: DBusMessage, at path: DBusObjectPath, interface: String, name: String) {
        let result: Result<DBusValue, DBusError> = state.withLock { state in
            lookupProperty(state, path: path, interface: interface, name: name).flatMap { property in
                guard property.access.isReadable else {
                    return .failure(.remote(name: DBusErrorName.accessDenied, message: "Property \(name) is write-only"))
                }
                let value = state.objects[path]?.values[interface]?[name] ?? property.value
                return .success(value)
            }
        }
        switch result {
        case .success(let value): reply(call, [.variant(value)])
        case .failure(let error): replyError(call, error)
        }
    }

    private func getAllProperties(_ call: DBusMessage, at path: DBusObjectPath, interface: String) {
        let result: Result<DBusValue, DBusError> = state.withLock { state in
            guard let object = state.objects[path] else {
                return .failure(.remote(name: DBusErrorName.unknownObject, message: "No object \(path.rawValue)"))
            }
            guard let definition = object.interfaces[interface] else {
                return .failure(.remote(name: DBusErrorName.unknownInterface, message: "No interface \(interface)"))
            }
            return .success(Self.readableProperties(object, definition))
        }
        switch result {
        case .success(let value): reply(call, [value])
        case .failure(let error): replyError(call, error)
        }
    }

    /// Checks access and type, runs the property's setter, stores the value and emits
    /// PropertiesChanged.
    private func setProperty(
        _ call: DBusMessage, at path: DBusObjectPath, interface: String, name: String, to value: DBusValue
    ) async {
        let property: DBusProperty
        switch state.withLock({ lookupProperty($0, path: path, interface: interface, name: name) }) {
        case .failure(let error):
            replyError(call, error)
            return
        case .success(let found):
            property = found
        }
        guard property.access.isWritable else {
            replyError(call, DBusErrorName.propertyReadOnly, "Property \(name) is read-only")
            return
        }
        guard value.signature == property.signature else {
            replyError(call, DBusErrorName.invalidArgs, "Property \(name) has type \(property.signature.rawValue)")
            return
        }
        do {
            if let setter = property.setter { try await setter(value) }
            try state.withLock { (state) throws(DBusError) in
                try storeAndEmit(&state, [name: value], interface: interface, path: path)
            }
            reply(call, [])
        } catch {
            replyError(call, error)
        }
    }

    func lookupProperty(
        _ state: State, path: DBusObjectPath, interface: String, name: String
    ) -> Result<DBusProperty, DBusError> {
        guard let object = state.objects[path] else {
            return .failure(.remote(name: DBusErrorName.unknownObject, message: "No object \(path.rawValue)"))
        }
        guard let definition = object.interfaces[interface] else {
            return .failure(.remote(name: DBusErrorName.unknownInterface, message: "No interface \(interface)"))
        }
        guard let property = definition.properties.first(where: { $0.name == name }) else {
            return .failure(.remote(name: DBusErrorName.unknownProperty, message: "No property \(name) in \(interface)"))
        }
        return .success(property)
    }
}
