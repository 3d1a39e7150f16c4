/// Every failure of the BlueZ layer. BlueZ's own error replies keep their D-Bus error
/// name (``errorName``), e.g. `org.bluez.Error.Failed` with `le-connection-abort-by-local`.
public enum BluetoothError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody owns `org.bluez` on the bus: bluetoothd is not running.
    case bluetoothdNotRunning(String)
    /// No adapter of that name (nil: no adapter at all); `available` lists the others.
    case noSuchAdapter(String?, available: [String])
    /// The adapter exists but is powered off (`bluetoothctl power on`).
    case adapterPoweredOff(String)
    /// Discovery found no matching device within the deadline.
    case deviceNotFound(String, after: Duration)
    /// An operation did not finish within its deadline.
    case timedOut(String, after: Duration)
    /// BlueZ answered an operation with a D-Bus error.
    case bluez(operation: String, name: String, message: String)
    /// A GATT service or characteristic the caller needs is not on the device.
    case missingAttribute(String)
    /// The connection to the device ended (see ``BluetoothLinkLoss``).
    case linkLost(BluetoothLinkLoss)
    /// The connection was closed by this side.
    case closed
    /// The D-Bus connection failed or was lost.
    case bus(String)
    /// libdbus could not be loaded, so BlueZ cannot be reached at all.
    case dbusLibraryUnavailable(DBusLibraryError)
    /// The calling task was cancelled.
    case cancelled
    /// BlueZ answered with something this layer does not understand.
    case unexpectedReply(String)

    /// Maps a D-Bus failure of `operation`; `org.bluez` without owner becomes
    /// ``bluetoothdNotRunning(_:)``, and so does the bus failing to start it (activation).
    public init(_ error: DBusError, operation: String) {
        switch error {
        case .remote(let name, let message):
            if Self.noBluetoothd.contains(name) {
                self = .bluetoothdNotRunning("\(operation): \(name): \(message)")
            } else {
                self = .bluez(operation: operation, name: name, message: message)
            }
        case .timeout(let call): self = .bluez(operation: operation, name: DBusErrorName.noReply, message: call)
        case .disconnected(let reason): self = .bus("\(operation): \(reason)")
        case .connectionFailed(let name, let message): self = .bus("\(operation): \(name): \(message)")
        case .libraryUnavailable(let error): self = .dbusLibraryUnavailable(error)
        case .cancelled: self = .cancelled
        case .marshalling(let detail): self = .unexpectedReply("\(operation): \(detail)")
        }
    }

    /// The bus's answers when nobody owns `org.bluez` and it cannot be started.
    private static let noBluetoothd: Set<String> = [
        DBusErrorName.serviceUnknown, DBusErrorName.nameHasNoOwner, DBusErrorName.spawnChildExited,
        DBusErrorName.spawnServiceNotFound,
    ]

    /// The D-Bus error name behind the error, when BlueZ or the bus gave one.
    public var errorName: String? {
        if case .bluez(_, let name, _) = self { return name }
        return nil
    }

    /// A stable identifier: the D-Bus error name for BlueZ errors, else e.g.
    /// `bluetoothd-not-running`, `no-such-adapter`, `adapter-powered-off`,
    /// `device-not-found`, `timeout`, `missing-attribute`, `dbus-library-unavailable`, or the
    /// link loss code.
    public var code: String {
        switch self {
        case .bluetoothdNotRunning: "bluetoothd-not-running"
        case .noSuchAdapter: "no-such-adapter"
        case .adapterPoweredOff: "adapter-powered-off"
        case .deviceNotFound: "device-not-found"
        case .timedOut: "timeout"
        case .bluez(_, let name, _): name
        case .missingAttribute: "missing-attribute"
        case .linkLost(let loss): loss.code
        case .closed: "closed"
        case .bus: "dbus-failed"
        case .dbusLibraryUnavailable(let error): error.code
        case .cancelled: "cancelled"
        case .unexpectedReply: "unexpected-reply"
        }
    }

    public var description: String {
        switch self {
        case .bluetoothdNotRunning(let detail): "bluetoothd is not running (\(detail))"
        case .noSuchAdapter(let name, let available):
            (name.map { "no Bluetooth adapter named \($0)" } ?? "no Bluetooth adapter")
                + (available.isEmpty ? "" : " (adapters: \(available.joined(separator: ", ")))")
        case .adapterPoweredOff(let name): "Bluetooth adapter \(name) is powered off"
        case .deviceNotFound(let what, let after): "no device matching \(what) found within \(after)"
        case .timedOut(let what, let after): "\(what) did not finish within \(after)"
        case .bluez(let operation, let name, let message):
            message.isEmpty ? "\(operation) failed: \(name)" : "\(operation) failed: \(name): \(message)"
        case .missingAttribute(let what): what
        case .linkLost(let loss): "the Bluetooth link was lost: \(loss)"
        case .closed: "the Bluetooth connection is closed"
        case .bus(let detail): "D-Bus failure: \(detail)"
        case .dbusLibraryUnavailable(let error): error.description
        case .cancelled: "cancelled"
        case .unexpectedReply(let detail): "unexpected reply from BlueZ: \(detail)"
        }
    }
}

/// Why a connection to a device ended without this side closing it.
public struct BluetoothLinkLoss: Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier: `remote-disconnected`, `device-removed`,
    /// `bluetoothd-restarted`, `gatt-services-removed` or `dbus-disconnected`.
    public var code: String
    public var detail: String

    public init(code: String, detail: String) {
        self.code = code
        self.detail = detail
    }

    /// BlueZ reported `Connected` false.
    public static func remoteDisconnected(_ device: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(code: "remote-disconnected", detail: "\(device) disconnected (Device1.Connected is false)")
    }
    /// The device object vanished from BlueZ.
    public static func deviceRemoved(_ device: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(code: "device-removed", detail: "BlueZ removed \(device)")
    }
    /// `org.bluez` changed owner: every object and notification session is gone.
    public static func bluetoothdRestarted(newOwner: String?) -> BluetoothLinkLoss {
        BluetoothLinkLoss(
            code: "bluetoothd-restarted",
            detail: newOwner.map { "bluetoothd restarted (org.bluez is now \($0))" } ?? "bluetoothd stopped")
    }
    /// A characteristic this connection uses vanished (the peripheral changed its services).
    public static func attributesRemoved(_ path: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(code: "gatt-services-removed", detail: "BlueZ removed \(path)")
    }
    /// The D-Bus connection itself ended.
    public static func busLost(_ reason: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(code: "dbus-disconnected", detail: reason)
    }

    public var description: String { "\(code): \(detail)" }
}
