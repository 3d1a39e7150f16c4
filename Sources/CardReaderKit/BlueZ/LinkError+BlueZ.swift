package import BLETransport

/// BlueZ's failures as link errors: the same identifiers, with the BlueZ layer's fix.
extension LinkError {
    /// A BlueZ failure: the code is BlueZ's D-Bus error name or the BlueZ layer's code
    /// (`bluetoothd-not-running`, `remote-disconnected`, …), with what a person can do.
    package init(_ error: BluetoothError) {
        self.init(
            Code(error.code), error.description, fix: error.fix,
            isHostBluetoothLoss: Self.hostBluetoothLosses.contains(error.code))
    }

    /// The connection ended, as the BlueZ layer saw it.
    package init(_ loss: BluetoothLinkLoss) {
        self.init(
            Code(loss.code), loss.detail, fix: loss.code.fix, isHostBluetoothLoss: Self.hostBluetoothLosses.contains(loss.code))
    }

    /// What the BlueZ layer reports when this host's Bluetooth went away rather than the
    /// reader: bluetoothd gone or restarted, the bus gone, the adapter gone or off, the
    /// device object removed (which an adapter's removal does to every device).
    private static let hostBluetoothLosses: Set<BluetoothError.Code> = [
        .bluetoothdRestarted, .bluetoothdNotRunning, .busDisconnected, .noSuchAdapter, .adapterPoweredOff, .deviceRemoved,
    ]
}

extension LinkInbound {
    /// A notification or the connection's end, from the BlueZ layer.
    package init(_ item: GattInbound) {
        switch item {
        case .notification(let value): self = .notification(value)
        case .dropped(let loss): self = .dropped(LinkError(loss))
        }
    }
}

/// The codes a link over BlueZ ends or fails with. BlueZ's own D-Bus error names
/// (`org.bluez.Error.InProgress`, …) arrive as codes too, their name the raw value.
extension LinkError.Code {
    package init(_ code: BluetoothError.Code) {
        self.init(rawValue: code.rawValue)
    }

    /// BlueZ removed the device object.
    public static let deviceRemoved = Self(BluetoothError.Code.deviceRemoved)
    /// bluetoothd stopped or restarted: every connection ended.
    public static let bluetoothdRestarted = Self(BluetoothError.Code.bluetoothdRestarted)
    /// A GATT service or characteristic in use vanished (the reader changed its services).
    public static let servicesRemoved = Self(BluetoothError.Code.servicesRemoved)
    /// The D-Bus connection to the system bus ended.
    public static let busDisconnected = Self(BluetoothError.Code.busDisconnected)
    /// bluetoothd closed the notification socket while the reader stayed connected.
    public static let acquiredSocketClosed = Self(BluetoothError.Code.acquiredSocketClosed)
    /// Nobody owns `org.bluez` on the bus, and the bus cannot start it.
    public static let bluetoothdNotRunning = Self(BluetoothError.Code.bluetoothdNotRunning)
    /// No Bluetooth adapter, or none of the name asked for.
    public static let noSuchAdapter = Self(BluetoothError.Code.noSuchAdapter)
    /// The adapter is powered off.
    public static let adapterPoweredOff = Self(BluetoothError.Code.adapterPoweredOff)
    /// Discovery found no matching reader within its deadline.
    public static let deviceNotFound = Self(BluetoothError.Code.deviceNotFound)
    /// The device lacks the reader's GATT service or characteristics.
    public static let missingAttribute = Self(BluetoothError.Code.missingAttribute)
    /// The D-Bus connection failed.
    public static let busFailed = Self(BluetoothError.Code.busFailed)
    /// No D-Bus bus answers at its address.
    public static let busUnreachable = Self(BluetoothError.Code.busUnreachable)
    /// libdbus could not be loaded.
    public static let dbusLibraryUnavailable = Self(BluetoothError.Code.dbusLibraryUnavailable)
    /// The bus's policy does not let this process talk to `org.bluez`.
    public static let accessDenied = Self(BluetoothError.Code.accessDenied)
    /// bluetoothd did not answer a call in time.
    public static let noReply = Self(BluetoothError.Code.noReply)
    /// BlueZ answered with something the SDK does not understand.
    public static let unexpectedReply = Self(BluetoothError.Code.unexpectedReply)
    /// This side aborted the LE connection attempt (often: the reader stopped advertising).
    public static let leConnectionAbortedByLocal = Self(BluetoothError.Code.leConnectionAbortedByLocal)
    /// The reader aborted the LE connection.
    public static let leConnectionAbortedByRemote = Self(BluetoothError.Code.leConnectionAbortedByRemote)
    /// The LE connection attempt timed out.
    public static let leConnectionTimedOut = Self(BluetoothError.Code.leConnectionTimedOut)
}
