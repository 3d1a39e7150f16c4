/// Every failure of the BlueZ layer, each with its ``code``. BlueZ's own error replies
/// keep their D-Bus error name and message (``bluez(operation:name:message:)``); their code
/// is the name, or BlueZ's reason for a failed connection (``BluetoothError/Code``). ``fix`` says
/// what a person can do about it.
public enum BluetoothError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody owns `org.bluez` on the bus: bluetoothd is not running.
    case bluetoothdNotRunning(String)
    /// No adapter of that name (nil: no adapter at all); `available` lists the others.
    case noSuchAdapter(String?, available: [String])
    /// The adapter exists but is powered off (`bluetoothctl power on`).
    case adapterPoweredOff(String)
    /// Discovery found no matching device within the deadline; `seen` lists the devices it
    /// saw advertising instead.
    case deviceNotFound(String, after: Duration, seen: SeenDevices = SeenDevices())
    /// An operation did not finish within its deadline.
    case timedOut(String, after: Duration)
    /// BlueZ answered an operation with a D-Bus error.
    case bluez(operation: String, name: String, message: String)
    /// A GATT service or characteristic the caller needs is not on the device.
    case missingAttribute(String)
    /// The connection to the device ended.
    case linkLost(BluetoothLinkLoss)
    /// The connection was closed by this side.
    case closed
    /// The D-Bus connection failed or was lost.
    case bus(String)
    /// The bus could not be reached at all: its D-Bus error name (`FileNotFound`: no socket,
    /// `NoServer`: nobody listening) and libdbus's message, which names the address.
    case busUnreachable(name: String, message: String)
    /// libdbus could not be loaded, so BlueZ cannot be reached at all.
    case dbusLibraryUnavailable(DBusLibraryError)
    /// The calling task was cancelled.
    case cancelled
    /// BlueZ answered with something this layer does not understand.
    case unexpectedReply(String)
    /// A device BlueZ holds a bond with connected, then dropped the link before its
    /// services could be used: the kernel could not encrypt with the bond's key (the peer
    /// answered the key request with PIN or Key Missing, or refused the encryption).
    case encryptionFailed(String)

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
        case .connectionFailed(let name, let message): self = .busUnreachable(name: name, message: message)
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

    /// What happened, as a stable identifier: for BlueZ's replies, the D-Bus error name or
    /// BlueZ's reason (``BluetoothError/Code/init(dbusErrorName:message:)``); for a lost link, its
    /// code.
    public var code: BluetoothError.Code {
        switch self {
        case .bluetoothdNotRunning: .bluetoothdNotRunning
        case .noSuchAdapter: .noSuchAdapter
        case .adapterPoweredOff: .adapterPoweredOff
        case .deviceNotFound: .deviceNotFound
        case .timedOut: .timedOut
        case .bluez(_, let name, let message): BluetoothError.Code(dbusErrorName: name, message: message)
        case .missingAttribute: .missingAttribute
        case .linkLost(let loss): loss.code
        case .closed: .notConnected
        case .bus: .busFailed
        case .busUnreachable: .busUnreachable
        case .dbusLibraryUnavailable: .dbusLibraryUnavailable
        case .cancelled: .cancelled
        case .unexpectedReply: .unexpectedReply
        case .encryptionFailed: .encryptionFailed
        }
    }

    public var description: String {
        switch self {
        case .bluetoothdNotRunning(let detail): "bluetoothd is not running (\(detail))"
        case .noSuchAdapter(let name, let available):
            (name.map { "no Bluetooth adapter named \($0)" } ?? "no Bluetooth adapter")
                + (available.isEmpty ? "" : " (adapters: \(available.joined(separator: ", ")))")
        case .adapterPoweredOff(let name): "Bluetooth adapter \(name) is powered off"
        case .deviceNotFound(let what, let after, let seen):
            "no device matching \(what) found within \(after.secondsText)"
                + (seen.count == 0 ? "; no device advertised at all" : "; seen instead: \(seen)")
        case .timedOut(let what, let after): "\(what) did not finish within \(after.secondsText)"
        case .bluez(let operation, let name, let message):
            message.isEmpty ? "\(operation) failed: \(name)" : "\(operation) failed: \(name): \(message)"
        case .missingAttribute(let what): what
        case .linkLost(let loss): "the Bluetooth link was lost: \(loss)"
        case .closed: "the Bluetooth connection is closed"
        case .bus(let detail): "D-Bus failure: \(detail)"
        case .busUnreachable(let name, let message): "cannot reach the D-Bus system bus (\(name): \(message))"
        case .dbusLibraryUnavailable(let error): error.description
        case .cancelled: "cancelled"
        case .unexpectedReply(let detail): "unexpected reply from BlueZ: \(detail)"
        case .encryptionFailed(let device):
            "\(device) connected, then dropped the link before it was encrypted: it no longer accepts this host's bond"
        }
    }

    /// What a person can do about it (``BluetoothError/Code/fix`` of ``code``, naming the
    /// adapter where there is one), or nil.
    public var fix: String? {
        if case .adapterPoweredOff(let adapter) = self { return BluetoothError.Code.powerOnFix(adapter: adapter) }
        return code.fix
    }
}
