/// An `org.bluez.Agent1` exported on a session's own D-Bus connection: what bluetoothd asks
/// when a pairing needs a person (a passkey to type or show, a Just Works to approve).
///
/// Registered with `AgentManager1.RegisterAgent`. bluetoothd asks the agent on the caller's
/// own connection for the pairings that caller starts with `Device1.Pair`; everything
/// else (pairing a peer starts, or that bluetoothd starts by itself after an ATT security
/// error) goes to the *default* agent. A host registers its agent for the duration of its
/// own `Pair` and never asks to be the default; a peripheral that must answer pairings
/// others start (the emulated reader) asks to be the default (`asDefault`). Either way
/// every request about a device the ``PairingResponder`` does not accept is rejected
/// (`org.bluez.Error.Rejected`): one bluetoothd may serve other programs' devices.
///
/// bluetoothd accepts Just Works itself during a `Pair` (BlueZ 5.66, device.c), so a host
/// agent is asked only for a passkey.
public final class PairingAgent: Sendable {
    /// The agent's input and output, as BlueZ names it: with `Pair`, the pairing's own; as
    /// the default agent, the adapters'.
    public enum Capability: String, Sendable {
        /// Neither shows nor types anything: Just Works only.
        case noInputNoOutput = "NoInputNoOutput"
        /// Types a passkey a peer with a display shows (Passkey Entry).
        case keyboardOnly = "KeyboardOnly"
        /// Shows a passkey for the peer's user to type (a reader with a display).
        case displayOnly = "DisplayOnly"
    }

    /// The session the agent is exported on.
    public let session: BluetoothSession
    /// Where the agent object is, e.g. `/cardreaderkit/agent`.
    public let path: DBusObjectPath

    private init(session: BluetoothSession, path: DBusObjectPath) {
        self.session = session
        self.path = path
    }

    /// Exports the agent at `path` and registers it with `capability`; with `asDefault`,
    /// it also becomes bluetoothd's default agent.
    public static func register(
        on session: BluetoothSession, capability: Capability, responder: PairingResponder, asDefault: Bool = false,
        at path: DBusObjectPath = "/cardreaderkit/agent"
    ) async throws(BluetoothError) -> PairingAgent {
        do throws(DBusError) {
            try session.connection.export(path, interfaces: [interface(responder)])
        } catch {
            throw BluetoothError(error, operation: "exporting the pairing agent")
        }
        let agent = PairingAgent(session: session, path: path)
        do throws(BluetoothError) {
            try await session.call(
                BlueZNames.managerPath, BlueZNames.agentManagerInterface, "RegisterAgent",
                [.objectPath(path), .string(capability.rawValue)], timeout: .seconds(10), operation: "RegisterAgent")
            if asDefault {
                try await session.call(
                    BlueZNames.managerPath, BlueZNames.agentManagerInterface, "RequestDefaultAgent", [.objectPath(path)],
                    timeout: .seconds(10), operation: "RequestDefaultAgent")
            }
        } catch {
            await agent.unregister()
            throw error
        }
        return agent
    }

    /// Unregisters the agent and removes its object. Idempotent.
    public func unregister() async {
        await session.cleanUp(
            BlueZNames.managerPath, BlueZNames.agentManagerInterface, "UnregisterAgent", [.objectPath(path)],
            timeout: .seconds(5))
        session.connection.unexport(path)
    }

    private static func interface(_ responder: PairingResponder) -> DBusInterface {
        @Sendable func device(_ call: DBusMethodCall) throws -> DBusObjectPath {
            guard let device = call.arguments.first?.objectPathValue, responder.accepts(device) else {
                throw rejected("this agent answers for another device")
            }
            return device
        }
        return DBusInterface(
            BlueZNames.agentInterface,
            methods: [
                DBusMethod("Release", in: "", out: "") { _ in [] },
                DBusMethod("RequestPinCode", in: "o", out: "s") { _ in throw rejected("no PIN codes on LE") },
                DBusMethod("DisplayPinCode", in: "os", out: "") { _ in throw rejected("no PIN codes on LE") },
                DBusMethod("RequestPasskey", in: "o", out: "u") { call in
                    guard let passkey = await responder.passkey(try device(call)) else {
                        throw rejected("no passkey was given")
                    }
                    return [.uint32(passkey)]
                },
                DBusMethod("DisplayPasskey", in: "ouq", out: "") { call in
                    let passkey = call.arguments.dropFirst().first?.uint32Value ?? 0
                    await responder.displayPasskey(try device(call), passkey)
                    return []
                },
                DBusMethod("RequestConfirmation", in: "ou", out: "") { call in
                    guard await responder.authorize(try device(call)) else { throw rejected("not confirmed") }
                    return []
                },
                DBusMethod("RequestAuthorization", in: "o", out: "") { call in
                    guard await responder.authorize(try device(call)) else { throw rejected("not authorized") }
                    return []
                },
                DBusMethod("AuthorizeService", in: "os", out: "") { call in
                    guard await responder.authorize(try device(call)) else { throw rejected("not authorized") }
                    return []
                },
                DBusMethod("Cancel", in: "", out: "") { _ in
                    responder.cancelled()
                    return []
                },
            ])
    }

    private static func rejected(_ message: String) -> DBusError {
        .remote(name: "org.bluez.Error.Rejected", message: message)
    }
}

/// What a ``PairingAgent`` answers: which devices it speaks for, and the person's part.
public struct PairingResponder: Sendable {
    /// Whether the agent answers for this device at all; requests about others are rejected.
    public var accepts: @Sendable (DBusObjectPath) -> Bool
    /// The passkey the peer displays, typed by a person; nil rejects the pairing.
    public var passkey: @Sendable (DBusObjectPath) async -> UInt32?
    /// Shows the passkey the peer's user must type.
    public var displayPasskey: @Sendable (DBusObjectPath, UInt32) async -> Void
    /// Approves a pairing or a service (Just Works that bluetoothd does not approve itself).
    public var authorize: @Sendable (DBusObjectPath) async -> Bool
    /// bluetoothd gave up on a request it made (a timeout, or the link dropped).
    public var cancelled: @Sendable () -> Void

    /// A responder for the devices `accepts` admits; the others default to refusing.
    public init(
        accepts: @escaping @Sendable (DBusObjectPath) -> Bool,
        passkey: @escaping @Sendable (DBusObjectPath) async -> UInt32? = { _ in nil },
        displayPasskey: @escaping @Sendable (DBusObjectPath, UInt32) async -> Void = { _, _ in },
        authorize: @escaping @Sendable (DBusObjectPath) async -> Bool = { _ in false },
        cancelled: @escaping @Sendable () -> Void = {}
    ) {
        self.accepts = accepts
        self.passkey = passkey
        self.displayPasskey = displayPasskey
        self.authorize = authorize
        self.cancelled = cancelled
    }
}
