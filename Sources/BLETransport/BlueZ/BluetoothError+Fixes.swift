extension BluetoothError.Code {
    /// What a person can do about a failure with this code, for the codes a first run
    /// meets (no bus, no bluetoothd, no adapter, adapter off, the bus's policy, the device
    /// not found) and the common drops; nil when there is nothing to add to the
    /// description. Shown next to the description (`readerctl` prints it as `fix:`).
    public var fix: String? {
        switch self {
        case .dbusLibraryUnavailable:
            "install libdbus: `sudo apt-get install libdbus-1-3` (Debian, Ubuntu); a system that keeps it "
                + "outside the loader's path names the file in \(DBusLibrary.environmentVariable)"
        case .busUnreachable:
            "is dbus running? is bluetoothd? Start the system bus and then bluetoothd "
                + "(`sudo systemctl start dbus bluetooth`); in a container, mount the host's "
                + "/run/dbus/system_bus_socket; DBUS_SYSTEM_BUS_ADDRESS names a bus elsewhere"
        case .bluetoothdNotRunning, .bluetoothdRestarted:
            "start bluetoothd: `sudo systemctl start bluetooth` (Debian's bluez package installs it); "
                + "`systemctl status bluetooth` and `journalctl -u bluetooth` say why it stopped"
        case .accessDenied:
            "the system bus's policy does not let this user talk to org.bluez: the policy is "
                + "/etc/dbus-1/system.d/bluetooth.conf (or /usr/share/dbus-1/system.d/), which grants root and, "
                + "on most systems, the `bluetooth` group: `sudo usermod -aG bluetooth $USER` and log in again; "
                + "or add a file in /etc/dbus-1/system.d with <policy user=\"NAME\"><allow send_destination=\"org.bluez\"/>"
                + "</policy> and reload the bus (`sudo systemctl reload dbus`)"
        case .noSuchAdapter:
            "`bluetoothctl list` shows the adapters bluetoothd has: name one of them (or none, for the first "
                + "powered one); with none at all, plug one in and check that the kernel sees it "
                + "(`ls /sys/class/bluetooth`, `dmesg | grep -i bluetooth`) and that rfkill does not block it "
                + "(`rfkill list`)"
        case .adapterPoweredOff:
            Self.powerOnFix(adapter: "hciN")
        case .deviceNotFound:
            "make sure the device is switched on, charged, in range and not connected to another host "
                + "(a connected reader stops advertising); compare its name or address with what advertises "
                + "(`bluetoothctl scan le`); a longer timeout helps a device that advertises slowly"
        case .missingAttribute:
            "connect again (BlueZ can report the services resolved before it has exported them all, bluez issue "
                + "1489; it was looked for twice). If it recurs, check that the device is the one meant (a VPOS "
                + "reader has the ISSC data service). BlueZ keeps a copy of each bonded device's GATT table and "
                + "refreshes it when the device's Database Hash or Service Changed says so, not a service whose "
                + "characteristics changed in place; on BlueZ 5.66 a bonded device's copy lives in bluetoothd's "
                + "memory, so deleting the cache file does nothing until bluetoothd restarts: restart it (`sudo "
                + "systemctl restart bluetooth`; lanes reconnect by themselves), or remove the device (`readerctl "
                + "unpair`), which loses the bond and needs the reader in pairing mode to pair again"
        case .servicesRemoved:
            "the device's GATT table changed while connected (a firmware update, or a peripheral that stopped "
                + "serving): connect again; the new table is bound and a bond is kept"
        case .noReply:
            "bluetoothd did not answer in time: it may be stuck; `sudo systemctl restart bluetooth`"
        case .busDisconnected:
            "the system bus went away (dbus restarted?): connect again once it is back (`systemctl status dbus`)"
        case .remoteDisconnected, .deviceRemoved, .leConnectionAbortedByLocal, .leConnectionAbortedByRemote,
            .leConnectionTimedOut, .connectionAborted:
            "the device went away or did not accept the connection: make sure it is on, in range and not "
                + "connected to another host, then connect again"
        default:
            nil
        }
    }

    /// How to power `adapter` on, and what keeps it off.
    static func powerOnFix(adapter: String) -> String {
        "power it on: `bluetoothctl power on` (the default adapter) or `btmgmt --index \(adapter) power on`; "
            + "if it will not stay on, rfkill blocks it (`rfkill list`; `rfkill unblock bluetooth`, or a "
            + "hardware switch); `AutoEnable=true` in /etc/bluetooth/main.conf powers adapters on at start"
    }
}
