/// A D-Bus match rule (as given to `org.freedesktop.DBus.AddMatch`), also evaluated
/// locally to route incoming signals to the right subscription.
///
/// A message carries its sender's unique name (`:1.7`), so a well-known `sender`
/// (`org.bluez`) is resolved to its current owner for local matching: the connection
/// tracks the owner of every well-known name used in a subscription (GetNameOwner plus
/// NameOwnerChanged, processed in order on the dispatch thread), so signals from the
/// new owner after e.g. a bluetoothd restart still reach the subscription.
/// ``matches(_:)`` alone cannot resolve names and does not check a well-known sender.
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    public var type: DBusMessage.Kind? = .signal
    public var sender: String?
    public var interface: String?
    public var member: String?
    public var path: DBusObjectPath?
    public var pathNamespace: DBusObjectPath?
    public var destination: String?
    /// `argN` keys: the N-th body argument must be this string.
    public var arguments: [Int: String] = [:]
    /// `argNpath` keys.
    public var argumentPaths: [Int: String] = [:]

    public init(
        type: DBusMessage.Kind? = .signal, sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil, destination: String? = nil,
        arguments: [Int: String] = [:], argumentPaths: [Int: String] = [:]
    ) {
        self.type = type
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.destination = destination
        self.arguments = arguments
        self.argumentPaths = argumentPaths
    }

    /// The rule text for AddMatch/RemoveMatch.
    public var description: String {
        var parts: [String] = []
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)=\(DBusMatchRule.quote(value))")
        }
        add("type", type?.matchRuleName)
        add("sender", sender)
        add("interface", interface)
        add("member", member)
        add("path", path?.rawValue)
        add("path_namespace", pathNamespace?.rawValue)
        add("destination", destination)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
        for (index, value) in argumentPaths.sorted(by: { $0.key < $1.key }) { add("arg\(index)path", value) }
        return parts.joined(separator: ",")
    }

    /// Quotes a value: `'…'`, with an apostrophe written as `'\''`.
    static func quote(_ value: String) -> String {
        var quoted = "'"
        for character in value {
            if character == "'" { quoted += "'\\''" } else { quoted.append(character) }
        }
        return quoted + "'"
    }

    func validate() throws(DBusError) {
        if let path, !path.isValid { throw .marshalling("invalid path in match rule: \(path.rawValue)") }
        if let pathNamespace, !pathNamespace.isValid {
            throw .marshalling("invalid path_namespace in match rule: \(pathNamespace.rawValue)")
        }
        if path != nil && pathNamespace != nil { throw .marshalling("match rule has both path and path_namespace") }
        if let interface, !DBusNameValidation.isValidInterfaceName(interface) {
            throw .marshalling("invalid interface in match rule: \(interface)")
        }
        if let member, !DBusNameValidation.isValidMemberName(member) {
            throw .marshalling("invalid member in match rule: \(member)")
        }
        if let sender, !DBusNameValidation.isValidBusName(sender) {
            throw .marshalling("invalid sender in match rule: \(sender)")
        }
        for index in Array(arguments.keys) + Array(argumentPaths.keys) where !(0...63).contains(index) {
            throw .marshalling("match rule argument index \(index) out of range")
        }
        let texts = [sender, interface, member, destination].compactMap { $0 }
            + Array(arguments.values) + Array(argumentPaths.values)
        guard texts.allSatisfy(DBusNameValidation.isValidString) else {
            throw .marshalling("match rule value contains NUL")
        }
    }

    /// Whether `message` matches this rule (see the type's note about `sender`).
    public func matches(_ message: DBusMessage) -> Bool {
        if let sender, sender.hasPrefix(":") || sender == DBusStandard.busName, message.sender != sender {
            return false
        }
        return matchesIgnoringSender(message)
    }

    /// The well-known name in `sender` whose owner must be tracked, if any.
    var wellKnownSender: String? {
        guard let sender, !sender.hasPrefix(":"), sender != DBusStandard.busName else { return nil }
        return sender
    }

    /// Matching with well-known senders resolved through `owners` (name → unique name).
    func matches(_ message: DBusMessage, owners: [String: String]) -> Bool {
        if let name = wellKnownSender {
            guard let owner = owners[name], message.sender == owner else { return false }
            return matchesIgnoringSender(message)
        }
        return matches(message)
    }

    private func matchesIgnoringSender(_ message: DBusMessage) -> Bool {
        if let type, message.kind != type { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace {
            guard let messagePath = message.path, pathNamespace.contains(messagePath) else { return false }
        }
        if let destination, message.destination != destination { return false }
        for (index, expected) in arguments {
            guard index < message.body.count, case .string(let actual) = message.body[index], actual == expected
            else { return false }
        }
        for (index, expected) in argumentPaths {
            guard index < message.body.count else { return false }
            let actual: String
            switch message.body[index] {
            case .string(let s): actual = s
            case .objectPath(let p): actual = p.rawValue
            default: return false
            }
            guard DBusMatchRule.argPathMatches(actual, expected) else { return false }
        }
        return true
    }

    /// The `argNpath` relation of the D-Bus specification.
    static func argPathMatches(_ actual: String, _ expected: String) -> Bool {
        if actual == expected { return true }
        if expected.hasSuffix("/") && actual.hasPrefix(expected) { return true }
        if actual.hasSuffix("/") && expected.hasPrefix(actual) { return true }
        return false
    }
}

extension DBusMatchRule {
    /// `PropertiesChanged` of objects under `pathNamespace` (or of one `path`).
    public static func propertiesChanged(
        sender: String? = nil, path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil,
        interface changedInterface: String? = nil
    ) -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, interface: DBusStandard.propertiesInterface, member: "PropertiesChanged",
            path: path, pathNamespace: pathNamespace,
            arguments: changedInterface.map { [0: $0] } ?? [:])
    }

    /// `InterfacesAdded` of an object manager.
    public static func interfacesAdded(sender: String? = nil, managerPath: DBusObjectPath? = nil) -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, interface: DBusStandard.objectManagerInterface, member: "InterfacesAdded",
            path: managerPath)
    }

    /// `InterfacesRemoved` of an object manager.
    public static func interfacesRemoved(sender: String? = nil, managerPath: DBusObjectPath? = nil) -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, interface: DBusStandard.objectManagerInterface, member: "InterfacesRemoved",
            path: managerPath)
    }

    /// `NameOwnerChanged` of the bus daemon, optionally for one name (e.g. `org.bluez`).
    public static func nameOwnerChanged(name: String? = nil) -> DBusMatchRule {
        DBusMatchRule(
            sender: DBusStandard.busName, interface: DBusStandard.busInterface, member: "NameOwnerChanged",
            path: DBusStandard.busPath, arguments: name.map { [0: $0] } ?? [:])
    }
}
