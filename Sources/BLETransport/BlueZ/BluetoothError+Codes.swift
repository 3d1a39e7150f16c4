extension BluetoothError {
    /// A BlueZ-layer failure's identifier: `remote-disconnected`, `bluetoothd-not-running`,
    /// `org.bluez.Error.InProgress`, …
    ///
    /// A struct of static constants rather than an enum, so a name BlueZ adds breaks no
    /// client: a `switch` over codes has a `default`. BlueZ's and D-Bus's error names are
    /// codes as they are, mapped in one place (``init(dbusErrorName:message:)``).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }
    }
}

extension BluetoothError.Code {
    // MARK: The link ended

    /// The device disconnected, or went out of range (BlueZ reported `Connected` false).
    public static let remoteDisconnected = Self(rawValue: "remote-disconnected")
    /// BlueZ removed the device object.
    public static let deviceRemoved = Self(rawValue: "device-removed")
    /// bluetoothd stopped or restarted (`org.bluez` changed owner): every connection ended.
    public static let bluetoothdRestarted = Self(rawValue: "bluetoothd-restarted")
    /// A GATT service or characteristic in use vanished (the device changed its services).
    public static let servicesRemoved = Self(rawValue: "gatt-services-removed")
    /// The D-Bus connection to the system bus ended.
    public static let busDisconnected = Self(rawValue: "dbus-disconnected")
    /// bluetoothd closed a socket acquired with `AcquireNotify` or `AcquireWrite` while the
    /// device stayed connected.
    public static let acquiredSocketClosed = Self(rawValue: "acquired-socket-closed")

    // MARK: This side

    /// The link is not open, or was closed by this side.
    public static let notConnected = Self(rawValue: "not-connected")
    /// The operation was cancelled.
    public static let cancelled = Self(rawValue: "cancelled")
    /// An operation did not finish within its deadline.
    public static let timedOut = Self(rawValue: "timeout")

    // MARK: The Bluetooth stack

    /// Nobody owns `org.bluez` on the bus, and the bus cannot start it.
    public static let bluetoothdNotRunning = Self(rawValue: "bluetoothd-not-running")
    /// No Bluetooth adapter, or none of the name asked for.
    public static let noSuchAdapter = Self(rawValue: "no-such-adapter")
    /// The adapter is powered off.
    public static let adapterPoweredOff = Self(rawValue: "adapter-powered-off")
    /// Discovery found no matching device within its deadline.
    public static let deviceNotFound = Self(rawValue: "device-not-found")
    /// The device lacks a GATT service or characteristic the caller needs.
    public static let missingAttribute = Self(rawValue: "missing-attribute")
    /// The D-Bus connection failed.
    public static let busFailed = Self(rawValue: "dbus-failed")
    /// No D-Bus bus answers at its address (no `dbus-daemon`, or a socket that refuses this
    /// process): the connection could not be opened.
    public static let busUnreachable = Self(rawValue: "dbus-unreachable")
    /// libdbus could not be loaded.
    public static let dbusLibraryUnavailable = Self(rawValue: "dbus-library-unavailable")
    /// BlueZ answered with something this layer does not understand.
    public static let unexpectedReply = Self(rawValue: "unexpected-reply")
    /// A bonded device could not be encrypted with the bond's key.
    public static let encryptionFailed = Self(rawValue: "encryption-failed")

    // MARK: BlueZ's error names (org.bluez.Error.*)

    public static let bluezFailed = Self(rawValue: "org.bluez.Error.Failed")
    /// Another operation of the same kind is running (for a write: back-pressure).
    public static let inProgress = Self(rawValue: "org.bluez.Error.InProgress")
    public static let notPermitted = Self(rawValue: "org.bluez.Error.NotPermitted")
    public static let notAuthorized = Self(rawValue: "org.bluez.Error.NotAuthorized")
    public static let invalidArguments = Self(rawValue: "org.bluez.Error.InvalidArguments")
    public static let invalidOffset = Self(rawValue: "org.bluez.Error.InvalidOffset")
    public static let notSupported = Self(rawValue: "org.bluez.Error.NotSupported")
    public static let alreadyConnected = Self(rawValue: "org.bluez.Error.AlreadyConnected")
    public static let alreadyExists = Self(rawValue: "org.bluez.Error.AlreadyExists")
    public static let doesNotExist = Self(rawValue: "org.bluez.Error.DoesNotExist")
    public static let notReady = Self(rawValue: "org.bluez.Error.NotReady")
    /// Pairing failed: the agent refused or timed out, or the peer's Security Manager
    /// refused (every SMP failure: Pairing Not Supported, Confirm Value Failed, …).
    public static let authenticationFailed = Self(rawValue: "org.bluez.Error.AuthenticationFailed")
    /// Pairing was cancelled (`CancelPairing`) or the link dropped during it.
    public static let authenticationCanceled = Self(rawValue: "org.bluez.Error.AuthenticationCanceled")
    /// Pairing was refused at once: another pairing is under way, or the peer rejected it.
    public static let authenticationRejected = Self(rawValue: "org.bluez.Error.AuthenticationRejected")
    /// Pairing did not complete in time.
    public static let authenticationTimeout = Self(rawValue: "org.bluez.Error.AuthenticationTimeout")
    /// The connection pairing needs could not be made.
    public static let connectionAttemptFailed = Self(rawValue: "org.bluez.Error.ConnectionAttemptFailed")
    /// The call's reply did not come (D-Bus's `NoReply`: bluetoothd is stuck or gone).
    public static let noReply = Self(rawValue: "org.freedesktop.DBus.Error.NoReply")
    /// The bus's policy does not let this process talk to `org.bluez` (D-Bus's `AccessDenied`).
    public static let accessDenied = Self(rawValue: "org.freedesktop.DBus.Error.AccessDenied")

    // MARK: Why BlueZ's Connect failed (org.bluez.Error.Failed with one of these messages)

    /// This side aborted the LE connection attempt (often: the device stopped advertising).
    public static let leConnectionAbortedByLocal = Self(rawValue: "le-connection-abort-by-local")
    /// The device aborted the LE connection.
    public static let leConnectionAbortedByRemote = Self(rawValue: "le-connection-abort-by-remote")
    /// The LE connection attempt timed out.
    public static let leConnectionTimedOut = Self(rawValue: "le-connection-timeout")
    /// The kernel aborted the connection (older bluetoothd reports ECONNABORTED as text).
    public static let connectionAborted = Self(rawValue: "connection-aborted")
}

extension BluetoothError.Code {
    /// The code of a D-Bus error reply: BlueZ's reason when it is one BlueZ documents for a
    /// failed `Connect` (`org.bluez.Error.Failed: le-connection-abort-by-local`), else the
    /// error's name. The one place BlueZ's error replies become codes.
    public init(dbusErrorName name: String, message: String) {
        if name == Self.bluezFailed.rawValue, let reason = Self.connectFailureReasons[message] {
            self = reason
        } else {
            self.init(rawValue: name)
        }
    }

    /// The messages BlueZ sends with `org.bluez.Error.Failed` when a connection attempt
    /// fails, matched whole.
    private static let connectFailureReasons: [String: BluetoothError.Code] = [
        "le-connection-abort-by-local": .leConnectionAbortedByLocal,
        "le-connection-abort-by-remote": .leConnectionAbortedByRemote,
        "le-connection-timeout": .leConnectionTimedOut,
        "Software caused connection abort": .connectionAborted,
    ]

    /// Worth another `Connect`: an aborted LE connection attempt, or an operation in
    /// progress.
    public var isTransientConnectFailure: Bool {
        [.inProgress, .leConnectionAbortedByLocal, .leConnectionAbortedByRemote, .connectionAborted].contains(self)
    }
}

extension BluetoothLinkLoss {
    /// BlueZ reported `Connected` false.
    public static func remoteDisconnected(_ device: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(.remoteDisconnected, "\(device) disconnected (Device1.Connected is false)")
    }
    /// `Connected` false after the device's adapter began powering down (bluetoothd
    /// stopping, or the adapter switched off): this host's Bluetooth went, not the device.
    public static func adapterPoweringDown(_ adapter: String, device: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(.adapterPoweredOff, "\(device) disconnected: adapter \(adapter) is powering down")
    }
    /// The device object vanished from BlueZ.
    public static func deviceRemoved(_ device: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(.deviceRemoved, "BlueZ removed \(device)")
    }
    /// `org.bluez` changed owner: every object and notification session is gone.
    public static func bluetoothdRestarted(newOwner: String?) -> BluetoothLinkLoss {
        BluetoothLinkLoss(
            .bluetoothdRestarted,
            newOwner.map { "bluetoothd restarted (org.bluez is now \($0))" } ?? "bluetoothd stopped")
    }
    /// A characteristic this connection uses vanished (the peripheral changed its services).
    public static func servicesRemoved(_ path: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(.servicesRemoved, "BlueZ removed \(path)")
    }
    /// The D-Bus connection itself ended.
    public static func busLost(_ reason: String) -> BluetoothLinkLoss {
        BluetoothLinkLoss(.busDisconnected, reason)
    }
    /// bluetoothd closed `socket` (an acquired socket) of characteristic `path`, and asking
    /// it about `device` then failed with `error`: that failure says what went.
    package static func socketClosed(
        _ socket: String, of path: String, device: String, askingWhyFailed error: BluetoothError
    ) -> BluetoothLinkLoss {
        switch error {
        case .bus(let detail): .busLost(detail)
        case .bluetoothdNotRunning: .bluetoothdRestarted(newOwner: nil)
        case .linkLost(let earlier): earlier
        case .deviceNotFound: .deviceRemoved(device)
        // The device's object went (with its adapter, say) before the signal saying so came.
        case .bluez(_, let name, _) where DBusErrorName.objectGone.contains(name): .deviceRemoved(device)
        default:
            BluetoothLinkLoss(.acquiredSocketClosed, "bluetoothd closed \(socket) of \(path); asking BlueZ why failed: \(error)")
        }
    }
}

