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
        let member = call.member ?? ""
        if call.interface == DBusStandard.propertiesInterface {
            await handleProperties(call, at: path)
            return
        }
        let lookup: Lookup = state.withLock { state in
            guard let object = state.objects[path] else {
                return .failure(DBusErrorName.unknownObject, "No such object path '\(path.rawValue)'")
            }
            let interface = call.interface
            if member == "Introspect" && (interface == nil || interface == DBusStandard.introspectableInterface) {
                return .introspect(DBusIntrospection.xml(
                    interfaces: object.interfaceOrder.compactMap { object.interfaces[$0] },
                    isObjectManager: object.isObjectManager, isObject: true,
                    children: Self.children(of: path, in: state.objects)))
            }
            if object.isObjectManager, member == "GetManagedObjects",
                interface == nil || interface == DBusStandard.objectManagerInterface
            {
                let entries = state.objects.filter { path.isAncestor(of: $0.key) && !$0.value.interfaceOrder.isEmpty }
                    .sorted { $0.key < $1.key }
                    .map { DBusDictionaryEntry(
                        key: .objectPath($0.key), value: Self.interfacesAndProperties($0.value, names: $0.value.interfaceOrder)) }
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
        switch lookup {
        case .introspect(let xml):
            reply(call, [.string(xml)])
        case .managedObjects(let objects):
            reply(call, [objects])
        case .failure(let name, let message):
            replyError(call, name, message)
        case .method(let method):
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
    }

    func handleProperties(_ call: DBusMessage, at path: DBusObjectPath) async {
        let args = call.body
        switch (call.member ?? "", call.signature.rawValue) {
        case ("Get", "ss"):
            let interface = args[0].stringValue ?? ""
            let name = args[1].stringValue ?? ""
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
        case ("GetAll", "s"):
            let interface = args[0].stringValue ?? ""
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
        case ("Set", "ssv"):
            let interface = args[0].stringValue ?? ""
            let name = args[1].stringValue ?? ""
            guard case .variant(let value) = args[2] else { return }
            let lookup = state.withLock { lookupProperty($0, path: path, interface: interface, name: name) }
            let property: DBusProperty
            switch lookup {
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
        case ("Get", _), ("GetAll", _), ("Set", _):
            replyError(call, DBusErrorName.invalidArgs, "Wrong arguments '\(call.signature.rawValue)'")
        default:
            replyError(call, DBusErrorName.unknownMethod, "No method \(call.member ?? "") in \(DBusStandard.propertiesInterface)")
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
