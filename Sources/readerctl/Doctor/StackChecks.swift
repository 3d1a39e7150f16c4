import BLETransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The checks of what a Linux Bluetooth stack needs, from libdbus to a discovery that sees
/// advertisements. Every failure's fix comes from the library's errors (``BluetoothError/fix``).
enum StackChecks {
    /// The address libdbus uses for the system bus.
    static var systemBusAddress: String {
        getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
            ?? "unix:path=/run/dbus/system_bus_socket (the default)"
    }

    static func library() -> DoctorFinding<Void> {
        do throws(DBusLibraryError) {
            try DBusLibrary.require()
            let named = getenv(DBusLibrary.environmentVariable).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            return .holds((), named.map { "\($0) (named by \(DBusLibrary.environmentVariable)) loaded" }
                ?? "\(DBusLibrary.soname) loaded")
        } catch {
            return failure(.dbusLibraryUnavailable(error))
        }
    }

    static func systemBus() async -> DoctorFinding<BluetoothSession> {
        do throws(BluetoothError) {
            let session = try await BluetoothSession.open()
            return .holds(session, "\(systemBusAddress), connected as \(session.connection.uniqueName)")
        } catch {
            return failure(error)
        }
    }

    static func bluetoothd(_ session: BluetoothSession) async -> DoctorFinding<BluetoothdProgram?> {
        do throws(BluetoothError) {
            let daemon = try await session.bluetoothd()
            guard let processID = daemon.processID else {
                return .holds(nil, "org.bluez is \(daemon.uniqueName) (the bus does not say which process)")
            }
            let program = BluetoothdProgram(processID: processID)
            return .holds(
                program,
                "org.bluez is \(daemon.uniqueName), process \(processID)"
                    + (program.commandLine.map { " (\($0))" } ?? ""))
        } catch {
            return failure(error)
        }
    }

    /// A harmless call to bluetoothd (GetManagedObjects): the bus's policy lets this user
    /// talk to org.bluez, or answers AccessDenied.
    static func busPolicy(_ session: BluetoothSession) async -> DoctorFinding<[BluetoothAdapter]> {
        do throws(BluetoothError) {
            let adapters = try await session.adapters()
            return .holds(adapters, "org.bluez answered GetManagedObjects (\(adapters.count) adapters)")
        } catch {
            return failure(error)
        }
    }

    /// Always holds: says what could be found, from `bluetoothd --version` and from the
    /// adapters' Modalias.
    static func version(_ program: BluetoothdProgram?, adapters: [BluetoothAdapter]) -> DoctorFinding<Void> {
        var sources: [String] = []
        switch program?.executable {
        case let executable? where BluetoothdProgram.isBluetoothd(executable):
            sources.append(BluetoothdProgram.version(of: executable).map { "\($0) (\(executable) --version)" }
                ?? "\(executable) --version did not print a version")
        case let executable?:
            sources.append("org.bluez's process runs \(executable), not bluetoothd: not asked")
        case nil:
            sources.append("bluetoothd's executable not found")
        }
        if let adapter = adapters.first(where: { $0.bluezVersionFromModalias != nil }),
            let version = adapter.bluezVersionFromModalias
        {
            sources.append("\(version) (\(adapter.name)'s Modalias)")
        }
        return .holds((), sources.joined(separator: "; "))
    }

    /// The adapter `name` (an `hciN` or an address), else the first powered one, else the
    /// first.
    static func adapter(named name: String?, among adapters: [BluetoothAdapter]) -> DoctorFinding<BluetoothAdapter> {
        let all = adapters.map(\.name).joined(separator: ", ")
        if let name {
            guard let adapter = adapters.first(where: { $0.name == name || $0.address.uppercased() == name.uppercased() })
            else { return failure(.noSuchAdapter(name, available: adapters.map(\.name))) }
            return .holds(adapter, "\(adapter.name) (\(adapter.address)) of \(all)")
        }
        guard let adapter = adapters.first(where: \.isPowered) ?? adapters.first else {
            return failure(.noSuchAdapter(nil, available: []))
        }
        return .holds(adapter, "\(adapter.name) (\(adapter.address)), the first powered of \(all)")
    }

    static func powered(_ adapter: BluetoothAdapter) -> DoctorFinding<Void> {
        adapter.isPowered ? .holds((), "\(adapter.name) is powered") : failure(.adapterPoweredOff(adapter.name))
    }

    static func rfkill(_ adapter: BluetoothAdapter) -> DoctorFinding<Void> {
        guard let switches = RfkillSwitch.bluetooth() else {
            return .holds((), "\(RfkillSwitch.folder) cannot be read: no rfkill switches to check")
        }
        guard let own = switches.first(where: { $0.name == adapter.name }) else {
            return .holds((), "no rfkill switch for \(adapter.name)")
        }
        guard own.softBlocked || own.hardBlocked else { return .holds((), own.summary) }
        return .fails(own.summary, fix: own.fix)
    }

    static func lowEnergy(_ adapter: BluetoothAdapter) -> DoctorFinding<Void> {
        let roles = adapter.roles.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? ""
        switch adapter.supportsLECentral {
        case true?:
            return .holds((), "\(adapter.name) can scan and connect as an LE central (roles: \(roles))")
        case false?:
            return .fails(
                "\(adapter.name) has no LE central role (roles: \(roles)): it cannot reach a Bluetooth LE reader",
                fix: "use an adapter with Bluetooth LE (Bluetooth 4.0 or later): `bluetoothctl list` shows them; name it with --adapter")
        case nil:
            return .holds((), "this BlueZ does not report Roles (before 5.50): LE support not checked")
        }
    }

    /// The devices each adapter holds connected now, judged against `limit`.
    static func leLinks(on adapters: [BluetoothAdapter], limit: Int) async -> DoctorFinding<Void> {
        var connected: [(adapter: String, devices: [String])] = []
        for adapter in adapters {
            do throws(BluetoothError) {
                let devices = try await adapter.knownDevices().filter(\.isConnected)
                connected.append((adapter.name, devices.map { $0.name ?? $0.address }.sorted()))
            } catch {
                return failure(error)
            }
        }
        return leLinks(connected, limit: limit)
    }

    /// `connected`'s count per adapter; a warning for each adapter at `limit` or over. A
    /// controller's limit is an assumption: neither BlueZ 5.66 nor the kernel reports it.
    static func leLinks(_ connected: [(adapter: String, devices: [String])], limit: Int) -> DoctorFinding<Void> {
        let counts = connected.map { entry in
            entry.devices.isEmpty
                ? "\(entry.adapter): none" : "\(entry.adapter): \(entry.devices.count) (\(entry.devices.joined(separator: ", ")))"
        }
        let found = counts.joined(separator: "; ")
            + "; warns at \(limit) per adapter (an assumption: controllers hold about 5 to 7 LE links, and neither BlueZ nor the kernel reports the figure)"
        let full = connected.filter { $0.devices.count >= limit }
        guard !full.isEmpty else { return .holds((), found) }
        let names = full.map(\.adapter).joined(separator: ", ")
        return .warns(
            (), found,
            fix: "\(names) \(full.count == 1 ? "holds" : "hold") \(limit) or more links: a further reader may fail to connect "
                + "(le-connection-abort-by-local); put it on another adapter (--adapter), or raise --le-link-limit if this controller holds more")
    }

    /// An LE discovery of `duration` on `adapter` (ended early once `reader` is seen);
    /// the devices seen advertising, and when the reader was first seen.
    static func discovery(
        _ adapter: BluetoothAdapter, for duration: Duration, reader: DiscoveryFilter?
    ) async -> DoctorFinding<(devices: [BluetoothDeviceInfo], readerSeenAfter: Duration?)> {
        let start = ContinuousClock.now
        var readerSeenAfter: Duration?
        do throws(BluetoothError) {
            let devices = try await adapter.scan(DiscoveryFilter(), timeout: duration) { devices in
                guard let reader, devices.contains(where: reader.matches) else { return false }
                readerSeenAfter = readerSeenAfter ?? ContinuousClock.now - start
                return true
            }
            var seen = SeenDevices()
            for device in devices { seen.note(device) }
            guard seen.count > 0 else {
                return .fails(
                    "no device advertised within \(duration.secondsText) on \(adapter.name)",
                    fix: "switch the reader (or any Bluetooth LE device) on and bring it in range; if a phone nearby "
                        + "advertises and this still sees nothing, look at the adapter (`btmgmt --index \(adapter.name) info`, "
                        + "`dmesg | grep -i bluetooth`); an adapter does not hear its own advertisements: --adapter "
                        + "picks another; --scan-timeout gives slow advertisers longer")
            }
            let stopped = readerSeenAfter == nil ? "within \(duration.secondsText)" : "until the reader was seen"
            return .holds(
                (devices, readerSeenAfter),
                "\(seen.count) device\(seen.count == 1 ? "" : "s") seen advertising on \(adapter.name) \(stopped): \(seen)")
        } catch {
            return failure(error)
        }
    }

    /// A failure whose description and fix are the library's.
    static func failure<Value>(_ error: BluetoothError) -> DoctorFinding<Value> {
        .fails(error.description, fix: error.fix)
    }
}
