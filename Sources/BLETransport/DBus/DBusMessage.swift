/// A D-Bus message as a Swift value: header fields plus a decoded body.
///
/// Incoming messages are decoded into this type on the dispatch thread, so no libdbus
/// message ever leaves that thread. Signals delivered by
/// ``DBusConnection/signals(matching:bufferingPolicy:)`` are values of this type.
public struct DBusMessage: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, error, signal

        var code: Int32 {
            switch self {
            case .methodCall: DBusTypeCode.messageTypeMethodCall
            case .methodReturn: DBusTypeCode.messageTypeMethodReturn
            case .error: DBusTypeCode.messageTypeError
            case .signal: DBusTypeCode.messageTypeSignal
            }
        }

        var matchRuleName: String {
            switch self {
            case .methodCall: "method_call"
            case .methodReturn: "method_return"
            case .error: "error"
            case .signal: "signal"
            }
        }
    }

    public var kind: Kind
    /// The serial assigned by the sender (0 for messages not yet sent).
    public var serial: UInt32 = 0
    /// For replies: the serial of the call they answer.
    public var replySerial: UInt32 = 0
    public var path: DBusObjectPath?
    public var interface: String?
    public var member: String?
    public var errorName: String?
    public var destination: String?
    public var sender: String?
    public var noReplyExpected = false
    public var body: [DBusValue] = []

    public init(kind: Kind) { self.kind = kind }

    /// The signature of the body.
    public var signature: DBusSignature { DBusValue.signature(of: body) }

    /// A method call.
    public static func methodCall(
        destination: String?, path: DBusObjectPath, interface: String?, member: String, body: [DBusValue] = []
    ) -> DBusMessage {
        var message = DBusMessage(kind: .methodCall)
        message.destination = destination
        message.path = path
        message.interface = interface
        message.member = member
        message.body = body
        return message
    }

    /// A signal (broadcast unless `destination` is set).
    public static func signal(
        path: DBusObjectPath, interface: String, member: String, body: [DBusValue] = [], destination: String? = nil
    ) -> DBusMessage {
        var message = DBusMessage(kind: .signal)
        message.path = path
        message.interface = interface
        message.member = member
        message.body = body
        message.destination = destination
        return message
    }

    /// The reply to this method call.
    func methodReturn(body: [DBusValue]) -> DBusMessage {
        var reply = DBusMessage(kind: .methodReturn)
        reply.replySerial = serial
        reply.destination = sender
        reply.body = body
        return reply
    }

    /// An error reply to this method call.
    func errorReply(name: String, message text: String) -> DBusMessage {
        var reply = DBusMessage(kind: .error)
        reply.replySerial = serial
        reply.destination = sender
        reply.errorName = name
        reply.body = text.isEmpty ? [] : [.string(text)]
        return reply
    }

    /// Checks header names and body values before the message is handed to libdbus.
    func validate() throws(DBusError) {
        if let path, !path.isValid { throw .marshalling("invalid object path '\(path.rawValue)'") }
        if let interface, !DBusNameValidation.isValidInterfaceName(interface) {
            throw .marshalling("invalid interface name '\(interface)'")
        }
        if let member, !DBusNameValidation.isValidMemberName(member) {
            throw .marshalling("invalid member name '\(member)'")
        }
        if let errorName, !DBusNameValidation.isValidErrorName(errorName) {
            throw .marshalling("invalid error name '\(errorName)'")
        }
        if let destination, !DBusNameValidation.isValidBusName(destination) {
            throw .marshalling("invalid bus name '\(destination)'")
        }
        switch kind {
        case .methodCall:
            guard path != nil, member != nil else { throw .marshalling("method call needs a path and a member") }
        case .signal:
            guard path != nil, interface != nil, member != nil else {
                throw .marshalling("signal needs a path, an interface and a member")
            }
        case .error:
            guard errorName != nil else { throw .marshalling("error reply needs an error name") }
        case .methodReturn:
            break
        }
        // libdbus refuses (by aborting) to send on the reserved local path/interface.
        guard path != DBusStandard.localPath, interface != DBusStandard.localInterface else {
            throw .marshalling("the org.freedesktop.DBus.Local path and interface are reserved")
        }
        for value in body { try value.validate() }
        guard signature.rawValue.utf8.count <= 255 else {
            throw .marshalling("message signature longer than 255 characters")
        }
    }

    /// A short description of the header for logs (no payload).
    var logDescription: String {
        var parts: [String] = ["\(kind)"]
        if serial != 0 { parts.append("serial=\(serial)") }
        if replySerial != 0 { parts.append("reply_serial=\(replySerial)") }
        if let sender { parts.append("sender=\(sender)") }
        if let destination { parts.append("destination=\(destination)") }
        if let path { parts.append("path=\(path.rawValue)") }
        if let interface { parts.append("interface=\(interface)") }
        if let member { parts.append("member=\(member)") }
        if let errorName { parts.append("error=\(errorName)") }
        parts.append("signature=\(signature.rawValue)")
        return parts.joined(separator: " ")
    }
}
