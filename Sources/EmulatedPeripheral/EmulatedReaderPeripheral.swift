import BLETransport
import CardReaderCore
import CardReaderKitTesting
import DisabledLogging
import Logging
import ReaderProtocol

/// Serves an ``EmulatedReader`` as a real BLE peripheral through BlueZ: the reader's GATT
/// layout (documentation §1) — the ISSC data service (TX notify, RX write and
/// write-without-response), Device Information (`180A`) and Battery (`180F`), in the table
/// its firmware serves (``EmulatedGattLayout``: an update can move the data service) — and
/// a connectable advertisement named `VPOS3356-XXXX`.
///
/// Notifications carry at most MTU − 5 bytes of the ATT MTU BlueZ reports with each write
/// (23 until it does: bluetoothd cuts longer values of the Multiple Handle Value
/// Notifications it sends a BlueZ central); one central at a time: writes from a second are refused with
/// `org.bluez.Error.NotPermitted`. When the emulated reader drops the link, the central
/// is disconnected.
///
/// ```swift
/// let peripheral = try await EmulatedReaderPeripheral.start(reader: EmulatedReader(card: .visaTest), adapter: "hci0")
/// // … a central connects to peripheral.localName …
/// await peripheral.stop()
/// ```
public actor EmulatedReaderPeripheral {
    static let transmit = BluetoothUUID(stringLiteral: ReaderGATTProfile.transmitCharacteristic)
    static let receive = BluetoothUUID(stringLiteral: ReaderGATTProfile.receiveCharacteristic)
    /// The Battery service's level (`2A19`).
    static let batteryLevel = BluetoothUUID(stringLiteral: "2a19")

    /// The emulated reader that answers the central's commands.
    public nonisolated let reader: EmulatedReader
    /// The advertised local name, e.g. `VPOS3356-0001`.
    public nonisolated let localName: String
    /// The adapter it serves on, e.g. `hci0`.
    public nonisolated let adapterName: String
    /// The largest ATT MTU it uses: notifications are at most this − 5 bytes.
    public nonisolated let maximumMTU: Int

    private let session: BluetoothSession
    private var adapter: BluetoothAdapter
    private let logger: Logger
    private var manufacturer = ""
    /// The table registered with bluetoothd, while it is.
    private var layout: EmulatedGattLayout?
    private var application: GattApplication?
    private var advertiser: LEAdvertiser?
    private var watcher: Task<Void, Never>?
    private var central: DBusObjectPath?
    private var connectionID: Int?
    private var pump: Task<Void, Never>?
    /// Carries the reader's Battery-service levels to `2A19` while a central is connected.
    private var batteryPump: Task<Void, Never>?
    private var comeback: Task<Void, Never>?
    private var stopped = false
    /// From firmware 3.0: the reader's side of pairing (the default agent of this bluetoothd).
    private var agent: PairingAgent?
    /// Keeps the adapter bondable exactly while the reader is in pairing mode.
    private var pairingMode: Task<Void, Never>?
    /// The hosts holding a bond with the reader, oldest first.
    private var bondOrder: [DBusObjectPath] = []
    /// The adapter's alias before it became the reader's name, put back at ``stop()``.
    private var previousAlias: String?

    private init(
        reader: EmulatedReader, localName: String, session: BluetoothSession, adapter: BluetoothAdapter,
        maximumMTU: Int, logger: Logger
    ) {
        self.reader = reader
        self.maximumMTU = maximumMTU
        self.localName = localName
        self.session = session
        self.adapter = adapter
        self.adapterName = adapter.name
        self.logger = logger
    }

    /// Registers the GATT application and the advertisement on `adapter` (the first
    /// powered adapter when nil). `localName` defaults to ``defaultLocalName(for:)``.
    /// Notifications are cut at the MTU BlueZ reports, at most `maximumMTU` (23…247).
    public static func start(
        reader: EmulatedReader, adapter: String? = nil, localName: String? = nil,
        manufacturer: String = "CardReaderKit", maximumMTU: Int = 247, busAddress: String? = nil,
        logger: Logger = .disabled
    ) async throws(BluetoothError) -> EmulatedReaderPeripheral {
        let session = try await BluetoothSession.open(busAddress: busAddress, logger: logger)
        do throws(BluetoothError) {
            let adapter = try await session.adapter(named: adapter)
            let peripheral = EmulatedReaderPeripheral(
                reader: reader, localName: localName ?? defaultLocalName(for: reader.configuration.info),
                session: session, adapter: adapter, maximumMTU: min(max(maximumMTU, 23), 247), logger: logger)
            try await peripheral.setUp(manufacturer: manufacturer)
            return peripheral
        } catch {
            await session.close()
            throw error
        }
    }

    /// `<model>-XXXX`: the model (`VPOS3356`) and the last four characters of the serial
    /// number when they are hex digits, else four random hex digits.
    public static func defaultLocalName(for info: ReaderInfo) -> String {
        let model = info.model ?? "VPOS3356"
        let tail = String((info.serialNumber ?? "").suffix(4)).uppercased()
        let suffix =
            tail.count == 4 && tail.allSatisfy(\.isHexDigit)
            ? tail : String(UInt16.random(in: .min ... .max), radix: 16, uppercase: true).leftPadded(to: 4)
        return "\(model)-\(suffix)"
    }

    private func setUp(manufacturer: String) async throws(BluetoothError) {
        self.manufacturer = manufacturer
        try await register()
    }

    /// The services of the table the running firmware serves (``EmulatedGattLayout``).
    private func services(for layout: EmulatedGattLayout) -> [GattServiceDefinition] {
        let info = reader.configuration.info
        let battery = reader.scenario.batteryPercent ?? info.batteryPercent ?? 100
        // From firmware 3.0, TX's subscription and RX's writes need an encrypted link (§1.1):
        // bluetoothd refuses them otherwise (ATT 0x0F; a write without response is dropped).
        let encrypted = layout.protectsDataService
        let data = GattServiceDefinition(
            uuid: BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService),
            characteristics: [
                GattCharacteristicDefinition(
                    uuid: Self.transmit, flags: encrypted ? ["notify", "encrypt-notify"] : ["notify"],
                    onNotifyChange: { [weak self] enabled in await self?.notificationsChanged(enabled) }),
                GattCharacteristicDefinition(
                    uuid: Self.receive,
                    flags: encrypted ? ["encrypt-write", "write-without-response"] : ["write", "write-without-response"],
                    onWrite: { [weak self] (value, request) throws(GattRequestError) in
                        guard let self else { throw .failed("the emulated reader stopped") }
                        try await self.received(value, request)
                    }),
            ])
        func text(_ uuid: String, _ value: String?) -> GattCharacteristicDefinition {
            GattCharacteristicDefinition(uuid: BluetoothUUID(stringLiteral: uuid), flags: ["read"], initialValue: Array((value ?? "").utf8))
        }
        // The firmware revision is read from the reader each time: an update changes it.
        let reader = self.reader
        let firmwareRevision = GattCharacteristicDefinition(
            uuid: "2a26", flags: ["read"], onRead: { _ in Array((await reader.firmwareVersion ?? "").utf8) })
        let deviceInformation = GattServiceDefinition(
            uuid: "180a",
            characteristics: [
                text("2a24", info.model), text("2a25", info.serialNumber), firmwareRevision, text("2a29", manufacturer),
            ])
        let batteryService = GattServiceDefinition(
            uuid: "180f",
            characteristics: [GattCharacteristicDefinition(uuid: Self.batteryLevel, flags: ["read", "notify"], initialValue: [battery])])
        return switch layout.order {
        case .dataServiceFirst: [data, deviceInformation, batteryService]
        case .dataServiceLast: [deviceInformation, batteryService, data]
        }
    }

    /// Follows the adapter's devices, registers the application and the advertisement.
    private func register() async throws(BluetoothError) {
        let updates = try await adapter.deviceUpdates()
        watcher = Task { [weak self] in
            for await device in updates {
                if device.isConnected {
                    await self?.centralConnected(device.path)
                } else {
                    await self?.deviceDisconnected(device.path)
                }
                if device.isBonded { await self?.bonded(device.path) }
            }
            await self?.bluetoothdWentAway()
        }
        do throws(BluetoothError) {
            // The GAP Device Name a central reads after connecting is the adapter's alias:
            // the reader's own name, as a real reader's is.
            if previousAlias == nil { previousAlias = try await adapter.alias() }
            try await adapter.setAlias(localName)
            try await serveTable()
            advertiser = try await LEAdvertiser.register(
                LEAdvertisement(localName: localName), on: adapter, at: "/cardreaderkit/reader_advertisement")
        } catch {
            await unregister()
            throw error
        }
        logger.info("emulated reader advertising", metadata: ["name": "\(localName)", "adapter": "\(adapter.name)"])
    }

    private func unregister() async {
        watcher?.cancel()
        watcher = nil
        if let pairingMode {
            // Its loop may have left the adapter bondable: pairing mode ends with the reader.
            pairingMode.cancel()
            self.pairingMode = nil
            _ = try? await adapter.setPairable(false)
        }
        await agent?.unregister()
        agent = nil
        await advertiser?.unregister()
        if let application {
            await flushGoneHosts()
            await application.unregister()
        }
        advertiser = nil
        application = nil
        layout = nil
    }

    /// Registers the table the running firmware serves, in place of the one registered
    /// (bluetoothd gives the new services new handles, and sends Service Changed to bonded
    /// hosts), with the reader's side of pairing from 3.0.
    private func serveTable() async throws(BluetoothError) {
        let layout = await reader.gattLayout
        guard layout != self.layout else { return }
        if let application {
            await flushGoneHosts()
            await application.unregister()
            self.application = nil
            logger.info("GATT table changed with the firmware", metadata: ["name": "\(localName)", "table": "\(layout)"])
        }
        self.layout = nil
        if layout.protectsDataService, agent == nil { try await startPairing() }
        application = try await GattApplication.register(services(for: layout), on: adapter, at: "/cardreaderkit/reader")
        self.layout = layout
    }

    /// Makes bluetoothd forget the hosts that are gone, before the table goes away.
    ///
    /// bluetoothd keeps a bonded host's subscriptions after it disconnects. When that host's
    /// bond then goes (the reader dropped its oldest bond, or the button), bluetoothd forgets
    /// them only at its next Service Changed, by calling the subscribed characteristics'
    /// callbacks; when that Service Changed is the removal of this very table, BlueZ 5.66
    /// has freed the characteristics by then and can abort (Docs/bluetooth-notes.md). A
    /// service registered and removed just before the table goes sends that Service Changed
    /// while every characteristic still exists; it reaches no host the table's own removal
    /// would not reach anyway.
    private func flushGoneHosts() async {
        do throws(BluetoothError) {
            let flush = try await GattApplication.register(
                [Self.flushService], on: adapter, at: "/cardreaderkit/reader_flush")
            await flush.unregister()
        } catch {
            logger.debug("could not flush the hosts that are gone: \(error)")
        }
    }

    /// The service ``flushGoneHosts()`` registers for a moment: one readable characteristic.
    static let flushService = GattServiceDefinition(
        uuid: "6b1f0f57-4a0c-4e4c-9c36-1c2f5a0d7e01",
        characteristics: [GattCharacteristicDefinition(uuid: "6b1f0f57-4a0c-4e4c-9c36-1c2f5a0d7e02", flags: ["read"])])

    /// bluetoothd stopped or restarted and forgot the application: serve again once it
    /// is back (checked every half second for at most a minute).
    private func bluetoothdWentAway() async {
        guard !stopped, session.connection.isConnected else { return }
        logger.notice("bluetoothd went away; registering again once it is back", metadata: ["name": "\(localName)"])
        watcher = nil  // this very task: its stream has ended, it must not be cancelled
        await endReaderConnection()
        await unregister()
        let deadline = ContinuousClock.now + .seconds(60)
        while !stopped, ContinuousClock.now < deadline {
            do throws(BluetoothError) {
                adapter = try await session.adapter(named: adapterName)
                try await register()
                return
            } catch {
                logger.debug("not registered yet: \(error)")
                guard case .bus = error else {
                    try? await Task.sleep(for: .milliseconds(500))
                    continue
                }
                return
            }
        }
        if !stopped { logger.error("bluetoothd did not come back within a minute", metadata: ["name": "\(localName)"]) }
    }

    /// Unregisters everything and closes the D-Bus connection, disconnecting a connected
    /// central first (as a reader that is switched off). Idempotent.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        // A stop is most often asked from a cancelled task (Ctrl-C), where every D-Bus call
        // ends at once as cancelled: nothing would be unregistered, and the adapter would
        // keep the reader's name. The teardown runs in a task of its own, not cancelled.
        await Task { await self.tearDown() }.value
    }

    private func tearDown() async {
        comeback?.cancel()
        if let central {
            _ = try? await session.connection.call(
                destination: BlueZNames.service, path: central, interface: BlueZNames.deviceInterface,
                member: "Disconnect", timeout: .seconds(5))
        }
        await endReaderConnection()
        await unregister()
        if let previousAlias { try? await adapter.setAlias(previousAlias) }
        await session.close()
        logger.info("emulated reader stopped", metadata: ["name": "\(localName)"])
    }

    /// The connected central's device object on this adapter, if any.
    public var connectedCentral: DBusObjectPath? { central }

    // MARK: - GATT requests

    private func received(_ packet: [UInt8], _ request: GattRequest) async throws(GattRequestError) {
        guard !stopped else { throw .failed("the emulated reader stopped") }
        if let central, let device = request.device, device != central {
            throw .notPermitted("the reader already has a central connected")
        }
        do throws(LinkError) {
            let id = try await readerConnection(for: request.device, mtu: request.mtu)
            try await reader.receive(packet, connection: id)
        } catch {
            throw .failed(error.description)
        }
    }

    /// A central connected on this adapter: the reader's link begins now, as a real
    /// reader's does, so its idle rule counts from the connection and its reset drops a
    /// link that has carried no write yet. A second central is left alone (its writes are
    /// refused).
    private func centralConnected(_ device: DBusObjectPath) async {
        guard !stopped, central == nil || central == device else { return }
        do throws(LinkError) {
            _ = try await readerConnection(for: device, mtu: nil)
        } catch {
            // Restarting (silent), or not running: the central finds no reader to talk to.
            logger.debug("central connected while the reader cannot take it: \(error)")
        }
    }

    /// The reader's connection for the central `device`, begun if there is none; `mtu`,
    /// when BlueZ reported it with a write, sets the notifications' length (MTU 23 until
    /// it does).
    private func readerConnection(for device: DBusObjectPath?, mtu: Int?) async throws(LinkError) -> Int {
        let length = mtu.map { Self.notificationLength(mtu: min(max($0, 23), maximumMTU)) }
        if let connectionID {
            if central == nil { central = device }
            if let length { try await reader.setNotificationLength(length, connection: connectionID) }
            return connectionID
        }
        // bluetoothd delivers writes to an encrypt-write RX only on an encrypted link; what
        // the reader announces at a connection waits for the central's subscription.
        let connection = try await reader.connect(
            maximumNotificationLength: length ?? Self.notificationLength(mtu: GattPayload.defaultMTU),
            encrypted: await reader.requiresEncryption, subscribed: false)
        connectionID = connection.id
        central = device
        logger.debug("central connected", metadata: ["mtu": "\(mtu.map(String.init) ?? "not yet known")"])
        let levels = connection.batteryLevels
        batteryPump = Task { [weak self] in
            for await percent in levels { await self?.sendBatteryLevel(percent) }
        }
        pump = Task { [weak self] in
            for await item in connection.notifications {
                switch item {
                case .notification(let bytes): await self?.send(bytes)
                case .dropped: await self?.readerDropped()
                }
            }
        }
        return connection.id
    }

    /// The bytes one notification carries at ATT MTU `mtu`: MTU − 5, not MTU − 3.
    /// bluetoothd sends a peripheral's notifications to a central that supports them (every
    /// BlueZ central) as Multiple Handle Value Notifications, which put a handle and a length
    /// before each value, and cuts a value to the largest bearer's MTU − 5 (BlueZ 5.66 to
    /// this day, `bt_gatt_server_send_notification`): at MTU 247 on one bearer, 244-byte
    /// notifications lose 2 bytes each.
    static func notificationLength(mtu: Int) -> Int {
        mtu - 5
    }

    private func send(_ bytes: [UInt8]) {
        do throws(BluetoothError) {
            try application?.notify(Self.transmit, value: bytes)
        } catch {
            logger.debug("notification not sent: \(error)")
        }
    }

    /// The Battery service's level changed: `2A19` notifies it (bluetoothd's battery plugin
    /// on the host subscribes by itself, and shows it as `org.bluez.Battery1`).
    private func sendBatteryLevel(_ percent: UInt8) {
        do throws(BluetoothError) {
            try application?.notify(Self.batteryLevel, value: [percent])
        } catch {
            logger.debug("battery level not sent: \(error)")
        }
    }

    private func notificationsChanged(_ enabled: Bool) async {
        logger.debug("TX notifications \(enabled ? "enabled" : "disabled")")
        guard enabled else {
            await endReaderConnection()
            return
        }
        // The central can hear the reader now: what it announces at a connection goes out.
        do throws(LinkError) {
            await reader.hostSubscribed(connection: try await readerConnection(for: central, mtu: nil))
        } catch {
            logger.debug("TX subscribed while the reader cannot take a connection: \(error)")
        }
    }

    private func deviceDisconnected(_ path: DBusObjectPath) async {
        guard path == central else { return }
        logger.debug("central disconnected")
        await endReaderConnection()
    }

    /// The emulated reader dropped the link: drop the Bluetooth connection too. This runs in
    /// the pump, which ending the reader connection cancels: the central is disconnected first.
    private func readerDropped() async {
        let cause = await reader.lastDropCause
        logger.info("emulated reader dropped the link", metadata: ["reason": "\(cause?.code.rawValue ?? "?")"])
        // A restarting reader (new firmware, or its scheduled reset) stops advertising before
        // it drops the link, so the central cannot reconnect to it before it runs again.
        if cause?.code == .firmwareRestart || cause?.code == .readerReset { await restartOnNewFirmware() }
        if let central {
            do throws(DBusError) {
                _ = try await session.connection.call(
                    destination: BlueZNames.service, path: central, interface: BlueZNames.deviceInterface,
                    member: "Disconnect", timeout: .seconds(5))
            } catch {
                logger.warning("could not disconnect the central: \(error)")
            }
        }
        await endReaderConnection()
    }

    /// The reader restarts after a firmware update: it stops advertising, and advertises
    /// again once it runs (a reader that does not come back never does).
    private func restartOnNewFirmware() async {
        await advertiser?.unregister()
        advertiser = nil
        logger.info("emulated reader restarting", metadata: ["name": "\(localName)"])
        comeback = Task { [weak self, reader] in
            guard (try? await reader.waitUntilRunning()) != nil else { return }
            await self?.comeBack()
        }
    }

    /// The reader runs again: it serves the table of its new firmware, and advertises.
    private func comeBack() async {
        comeback = nil
        guard !stopped, advertiser == nil else { return }
        do throws(BluetoothError) {
            try await serveTable()
            advertiser = try await LEAdvertiser.register(
                LEAdvertisement(localName: localName), on: adapter, at: "/cardreaderkit/reader_advertisement")
            logger.info("emulated reader advertising again", metadata: ["name": "\(localName)"])
        } catch {
            logger.error("could not serve the reader after the restart: \(error)")
        }
    }

    // MARK: - Pairing (§1.1)

    /// The reader's side of pairing: the default agent of this bluetoothd, answering for
    /// this adapter's devices only (DisplayOnly for a reader with a display, which shows the
    /// passkey in the log; NoInputNoOutput otherwise), and the adapter bondable only in
    /// pairing mode, so the kernel refuses a new bond outside it (SMP Pairing Not Supported,
    /// 0x05) while existing bonds keep encrypting. `bond-forgotten` removes every bond first.
    private func startPairing() async throws(BluetoothError) {
        let adapterPrefix = adapter.path.rawValue + "/"
        let reader = reader
        let logger = logger
        let name = localName
        if reader.scenario.bondsForgotten {
            // The button clears every host the reader knew, paired or not.
            for device in try await adapter.knownDevices() where !device.isConnected {
                try await adapter.removeDevice(at: device.path)
            }
        }
        let displays = await reader.displaysPasskey
        agent = try await PairingAgent.register(
            on: session, capability: displays ? .displayOnly : .noInputNoOutput,
            responder: PairingResponder(
                accepts: { $0.rawValue.hasPrefix(adapterPrefix) },
                displayPasskey: { _, passkey in
                    // `wrong-passkey`: the display shows other digits than the ones the pairing checks.
                    let shown = reader.scenario.refusesPasskeys ? (passkey + 1) % 1_000_000 : passkey
                    logger.notice(
                        "\(name) displays passkey \(Passkey(shown).map(\.digits) ?? "??????")", metadata: ["name": "\(name)"])
                },
                authorize: { _ in
                    // `pairing-stalls`: the reader never answers; the kernel gives up on the
                    // pairing after its 30 s SMP timeout, and so does the reader then.
                    if reader.scenario.pairingStalls {
                        logger.info("pairing request left unanswered (scenario)", metadata: ["name": "\(name)"])
                        try? await Task.sleep(for: .seconds(30))
                        return false
                    }
                    return await reader.isInPairingMode
                }),
            asDefault: true, at: "/cardreaderkit/reader_agent")
        let adapter = adapter
        pairingMode = Task {
            var bondable: Bool?
            while !Task.isCancelled {
                let wanted = await reader.isInPairingMode
                if wanted != bondable, (try? await adapter.setPairable(wanted)) != nil {
                    bondable = wanted
                    logger.info(wanted ? "pairing mode" : "pairing mode over", metadata: ["name": "\(name)"])
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// A host holds a bond with this reader: it keeps bonds for at most
    /// ``EmulatedReaderConfiguration/maximumBonds`` hosts, dropping the oldest (§1.1), which
    /// must then pair again.
    private func bonded(_ host: DBusObjectPath) async {
        guard !bondOrder.contains(host) else { return }
        // Hosts whose bond went meanwhile (unpaired, the button) no longer count.
        let held = Set(((try? await adapter.knownDevices()) ?? []).filter(\.isBonded).map(\.path))
        bondOrder = bondOrder.filter(held.contains) + [host]
        while bondOrder.count > reader.configuration.maximumBonds {
            let oldest = bondOrder.removeFirst()
            do throws(BluetoothError) {
                try await adapter.removeDevice(at: oldest)
                logger.info("bond table full: the oldest host's bond dropped", metadata: ["name": "\(localName)", "host": "\(oldest)"])
            } catch {
                logger.warning("could not drop the oldest bond: \(error)")
            }
        }
    }

    private func endReaderConnection() async {
        pump?.cancel()
        pump = nil
        batteryPump?.cancel()
        batteryPump = nil
        central = nil
        if let id = connectionID {
            connectionID = nil
            await reader.disconnect(connection: id)
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
