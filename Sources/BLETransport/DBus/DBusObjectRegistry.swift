import Locking
import Logging

/// The objects a connection exports, and the handling of calls to them.
///
/// Thread/actor boundary: the registry's state is behind a mutex and can be changed
/// from any task. Incoming calls arrive from the connection's router task in arrival
/// order; each exported object has its own worker task that handles its calls one at a
/// time (so e.g. consecutive `WriteValue` calls to one GATT characteristic are handled
/// in order), while a slow handler on one object does not hold up other objects.
/// Replies and signals are sent through the dispatch loop's command queue; signals
/// caused by state changes are queued while the mutex is held, so they go out in the
/// order the changes were made.
final class DBusObjectRegistry: Sendable {
    static let standardInterfaces: Set<String> = [
        DBusStandard.propertiesInterface, DBusStandard.introspectableInterface,
        DBusStandard.objectManagerInterface, DBusStandard.peerInterface,
    ]

    struct ExportedObject {
        var interfaceOrder: [String] = []
        var interfaces: [String: DBusInterface] = [:]
        var values: [String: [String: DBusValue]] = [:]
        var isObjectManager = false
        var inbox: AsyncStream<DBusMessage>.Continuation
        var worker: Task<Void, Never>
    }

    struct State {
        var objects: [DBusObjectPath: ExportedObject] = [:]
        var closed = false
    }

    let state = Locked(State())
    let loop: DBusDispatchLoop
    let logger: Logger

    init(loop: DBusDispatchLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    // MARK: Changing the object tree (any task)

    func makeObject(at path: DBusObjectPath) -> ExportedObject {
        let (stream, inbox) = AsyncStream.makeStream(of: DBusMessage.self)
        let worker = Task(executorPreference: loop) { [weak self] in
            for await call in stream {
                guard let self else { return }
                await self.handle(call, at: path)
            }
        }
        return ExportedObject(inbox: inbox, worker: worker)
    }

    func export(_ path: DBusObjectPath, interfaces: [DBusInterface]) throws(DBusError) {
        guard path.isValid else { throw .marshalling("invalid object path '\(path.rawValue)'") }
        for interface in interfaces { try interface.validate() }
        let names = interfaces.map(\.name)
        guard Set(names).count == names.count else { throw .marshalling("interface listed twice") }
        try state.withLock { (state) throws(DBusError) in
            guard !state.closed else { throw .disconnected(loop.terminationReason) }
            var object = state.objects[path] ?? makeObject(at: path)
            for interface in interfaces where object.interfaces[interface.name] != nil {
                throw .marshalling("\(path.rawValue) already exports \(interface.name)")
            }
            for interface in interfaces {
                object.interfaceOrder.append(interface.name)
                object.interfaces[interface.name] = interface
                object.values[interface.name] = Dictionary(
                    interface.properties.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
            }
            state.objects[path] = object
            if let manager = Self.nearestManager(of: path, in: state.objects), !interfaces.isEmpty {
                let added = Self.interfacesAndProperties(object, names: names)
                sendInOrder(.signal(
                    path: manager, interface: DBusStandard.objectManagerInterface, member: "InterfacesAdded",
                    body: [.objectPath(path), added]))
            }
        }
    }

    func unexport(_ path: DBusObjectPath, interfaces names: [String]?) {
        let removed: ExportedObject? = state.withLock { state in
            guard var object = state.objects[path] else { return nil }
            let removing = names.map { names in object.interfaceOrder.filter(names.contains) } ?? object.interfaceOrder
            for name in removing {
                object.interfaces[name] = nil
                object.values[name] = nil
            }
            object.interfaceOrder.removeAll(where: removing.contains)
            let gone = object.interfaceOrder.isEmpty && !object.isObjectManager
            if gone {
                state.objects[path] = nil
            } else {
                state.objects[path] = object
            }
            if !removing.isEmpty, let manager = Self.nearestManager(of: path, in: state.objects) {
                sendInOrder(.signal(
                    path: manager, interface: DBusStandard.objectManagerInterface, member: "InterfacesRemoved",
                    body: [.objectPath(path), .stringArray(removing)]))
            }
            return gone ? object : nil
        }
        // Calls already queued for the object are answered with UnknownObject.
        removed?.inbox.finish()
    }

    func addObjectManager(at path: DBusObjectPath) throws(DBusError) {
        guard path.isValid else { throw .marshalling("invalid object path '\(path.rawValue)'") }
        try state.withLock { (state) throws(DBusError) in
            guard !state.closed else { throw .disconnected(loop.terminationReason) }
            var object = state.objects[path] ?? makeObject(at: path)
            object.isObjectManager = true
            state.objects[path] = object
        }
    }

    func setProperties(_ values: [String: DBusValue], interface: String, path: DBusObjectPath) throws(DBusError) {
        try state.withLock { (state) throws(DBusError) in
            try storeAndEmit(&state, values, interface: interface, path: path)
        }
    }

    func propertyValue(_ name: String, interface: String, path: DBusObjectPath) -> DBusValue? {
        state.withLock { $0.objects[path]?.values[interface]?[name] }
    }

    var exportedPaths: [DBusObjectPath] {
        state.withLock { Array($0.objects.keys) }.sorted()
    }

    func close() {
        let objects = state.withLock { state in
            state.closed = true
            let objects = Array(state.objects.values)
            state.objects.removeAll()
            return objects
        }
        for object in objects {
            object.inbox.finish()
            object.worker.cancel()
        }
    }

    // MARK: Helpers (called with the mutex held)

    func storeAndEmit(
        _ state: inout State, _ values: [String: DBusValue], interface: String, path: DBusObjectPath
    ) throws(DBusError) {
        guard var object = state.objects[path] else {
            throw .remote(name: DBusErrorName.unknownObject, message: "No object at \(path.rawValue)")
        }
        guard let definition = object.interfaces[interface] else {
            throw .remote(name: DBusErrorName.unknownInterface, message: "No interface \(interface)")
        }
        var changed: [String: DBusValue] = [:]
        for (name, value) in values {
            guard let property = definition.properties.first(where: { $0.name == name }) else {
                throw .remote(name: DBusErrorName.unknownProperty, message: "No property \(name)")
            }
            guard value.signature == property.signature else {
                throw .remote(
                    name: DBusErrorName.invalidArgs,
                    message: "Property \(name) has type \(property.signature), not \(value.signature)")
            }
            try value.validate()
            if property.emitsChangedSignal { changed[name] = value }
        }
        for (name, value) in values { object.values[interface, default: [:]][name] = value }
        state.objects[path] = object
        if !changed.isEmpty {
            sendInOrder(.signal(
                path: path, interface: DBusStandard.propertiesInterface, member: "PropertiesChanged",
                body: [.string(interface), .stringVariantDictionary(changed), .stringArray([])]))
        }
    }

    static func nearestManager(
        of path: DBusObjectPath, in objects: [DBusObjectPath: ExportedObject]
    ) -> DBusObjectPath? {
        objects.filter { $0.value.isObjectManager && $0.key.isAncestor(of: path) }
            .map(\.key).max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }
    }

    /// `a{sa{sv}}` of the readable properties of the given interfaces.
    static func interfacesAndProperties(_ object: ExportedObject, names: [String]) -> DBusValue {
        var entries: [DBusDictionaryEntry] = []
        for name in names {
            guard let interface = object.interfaces[name] else { continue }
            entries.append(DBusDictionaryEntry(key: .string(name), value: readableProperties(object, interface)))
        }
        return .dictionary(keySignature: "s", valueSignature: "a{sv}", entries: entries)
    }

    static func readableProperties(_ object: ExportedObject, _ interface: DBusInterface) -> DBusValue {
        var values: [String: DBusValue] = [:]
        for property in interface.properties where property.access.isReadable {
            values[property.name] = object.values[interface.name]?[property.name] ?? property.value
        }
        return .stringVariantDictionary(values)
    }

    static func children(of path: DBusObjectPath, in objects: [DBusObjectPath: ExportedObject]) -> [String] {
        var names: Set<String> = []
        for key in objects.keys where path.isAncestor(of: key) {
            let prefixLength = path.rawValue == "/" ? 1 : path.rawValue.utf8.count + 1
            let relative = key.rawValue.utf8.dropFirst(prefixLength)
            let first = relative.split(separator: UInt8(ascii: "/"), maxSplits: 1).first ?? relative[...]
            names.insert(String(decoding: first, as: UTF8.self))
        }
        return names.sorted()
    }

    // MARK: Sending

    /// Sends a message from the calling thread, in order with everything else this
    /// process sends (callers validated it or built it from validated parts).
    func sendInOrder(_ message: DBusMessage) {
        do {
            try loop.send(message)
        } catch {
            logger.debug("D-Bus could not send \(message.logDescription): \(error)")
        }
    }

    func reply(_ call: DBusMessage, _ body: [DBusValue]) {
        guard !call.noReplyExpected else { return }
        let reply = call.methodReturn(body: body)
        do {
            try reply.validate()
        } catch {
            logger.error("D-Bus handler for \(call.member ?? "?") returned an invalid value: \(error)")
            replyError(call, DBusErrorName.failed, "The handler returned an invalid value")
            return
        }
        // A reply that cannot be sent (e.g. it carries a unix fd and the peer's
        // connection cannot pass fds) is replaced by an error, so the caller is not left
        // waiting for its deadline.
        do {
            try loop.send(reply)
        } catch {
            logger.debug("D-Bus could not send reply to \(call.member ?? "?"): \(error)")
            _ = try? loop.send(call.errorReply(name: DBusErrorName.failed, message: String(describing: error)))
        }
    }

    func replyError(_ call: DBusMessage, _ name: String, _ message: String) {
        guard !call.noReplyExpected else { return }
        let errorName = DBusNameValidation.isValidErrorName(name) ? name : DBusErrorName.failed
        let text = DBusNameValidation.isValidString(message) ? message : ""
        sendInOrder(call.errorReply(name: errorName, message: text))
    }

    func replyError(_ call: DBusMessage, _ error: any Error) {
        switch error {
        case DBusError.remote(let name, let message): replyError(call, name, message)
        case let error as DBusError: replyError(call, DBusErrorName.failed, error.description)
        case is CancellationError: replyError(call, DBusErrorName.failed, "Cancelled")
        default: replyError(call, DBusErrorName.failed, String(describing: error))
        }
    }

}
