import BLETransport
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for bluetoothd on a private bus: owns `org.bluez` and serves an object
/// manager at `/`, with whatever adapters, devices and attributes a test exports.
package final class FakeBlueZ: Sendable {
    package let connection: DBusConnection
    /// Calls the fake received, as `Interface.Member path`.
    package let calls = Locked<[String]>([])

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    package static func start(on bus: TestBus) async throws -> FakeBlueZ {
        let connection = try await DBusConnection.connect(address: bus.address)
        // As bluetoothd, which serves its object manager before it answers any call made to
        // the name it takes (it runs no main loop until both are set up).
        try connection.addObjectManager(at: "/")
        _ = try await connection.requestName("org.bluez")
        return FakeBlueZ(connection: connection)
    }

    package func record(_ call: DBusMethodCall) {
        calls.withLock { $0.append("\(call.interface ?? "").\(call.member) \(call.path.rawValue)") }
    }

    package func recorded(_ member: String) -> [String] {
        calls.withLock { $0.filter { $0.contains(".\(member) ") } }
    }

    /// A method that only records its calls (see ``recorded(_:)``) and answers at once.
    package func recordingMethod(_ member: String, in signature: DBusSignature? = "") -> DBusMethod {
        DBusMethod(member, in: signature) { [self] call in
            record(call)
            return []
        }
    }

    /// Exports `/org/bluez/NAME` with `Adapter1` (`Address`, by default `00:AA:01:00:00:0N`
    /// for `hciN`; `Powered` and `properties`; `methods` such as `StartDiscovery`) and
    /// `interfaces`.
    package func addAdapter(
        _ name: String, address: String? = nil, powered: Bool, properties: [DBusProperty] = [], methods: [DBusMethod] = [],
        interfaces: [DBusInterface] = []
    ) throws {
        try connection.export(DBusObjectPath("/org/bluez/\(name)"), interfaces: [
            DBusInterface("org.bluez.Adapter1", methods: methods, properties: [
                DBusProperty("Address", value: .string(address ?? "00:AA:01:00:00:0\(name.suffix(1))")),
                DBusProperty("Powered", value: .bool(powered)),
            ] + properties)
        ] + interfaces)
    }
}

/// A reader as the fake bluetoothd shows it once connected: `Device1` on hci1 and the
/// ISSC service with TX (notify) and RX (write, write-without-response).
package final class FakeReader: Sendable {
    package static let device: DBusObjectPath = "/org/bluez/hci1/dev_00_AA_01_00_00_23"
    package static let service = device.appending("service0010")
    package static let transmit = service.appending("char0011")
    package static let receive = service.appending("char0013")
    package static let dataService: BluetoothUUID = "49535343-fe7d-4ae5-8fa9-9fafd205e455"
    package static let transmitUUID: BluetoothUUID = "49535343-1e4d-4bd9-ba61-23c647249616"
    package static let receiveUUID: BluetoothUUID = "49535343-8841-43f4-a8d4-ecbe34729bb3"

    package static let deviceInformation = device.appending("service000a")
    package static let firmwareRevision = deviceInformation.appending("char000b")

    /// What the reader's Device Information service gives for its firmware revision (`2A26`).
    package enum FirmwareRevision: Sendable {
        /// No Device Information service.
        case absent
        /// `2A26` reads as these bytes.
        case value([UInt8])
        /// `ReadValue` of `2A26` fails with this D-Bus error, as bluetoothd answers it.
        case readFails(name: String, message: String)
    }

    package init() {}

    /// Every WriteValue to RX: the bytes and the `type` option.
    package let writes = Locked<[([UInt8], String)]>([])
    /// Opened at each WriteValue to RX that is kept in ``writes``.
    package let wrote = Gate()
    /// Opened when a write of `[0xFF]` arrives; that write never completes. A write of
    /// `[0xFE]` fails `org.bluez.Error.Failed: Not connected`, as bluetoothd's do once the
    /// link is going.
    package let stuckWrite = Gate()
    /// Opened at each `Disconnect`, as it arrives.
    package let disconnected = Gate()
    /// Opened at each `Connect`, as it arrives.
    package let connectArrived = Gate()

    /// How many WriteValue calls RX has had (the first answers `InProgress`).
    private let writeCalls = Locked(0)

    /// bluetoothd's ends of the sockets handed out by AcquireNotify and AcquireWrite.
    package let acquiredNotify = Locked<Int32>(-1)
    package let acquiredWrite = Locked<Int32>(-1)

    /// Exports the reader. `Connect` fails `abortedConnects` times with
    /// `le-connection-abort-by-local`; the first write answers `InProgress`. With
    /// `offeringSockets`, TX and RX show `NotifyAcquired`/`WriteAcquired` and answer
    /// AcquireNotify/AcquireWrite with one end of a `SOCK_SEQPACKET` pair and MTU 247, as
    /// bluetoothd's gatt-client does. With `bonded`, the device shows `Paired` and `Bonded`;
    /// with `connectedBeforeAbort`, each aborted `Connect` first shows `Connected` true, then
    /// false, as BlueZ 5.66 does when a bonded peer refuses the encryption. The
    /// `stalledConnects` after those connect but never resolve services, as bluetoothd 5.66
    /// does now and then on a bonded device's ATT bearer.
    ///
    /// `firmwareRevision` is what Device Information gives (by default the service is
    /// absent); without `servingDataService`, the ISSC service is not exported at all. With
    /// an `rssi`, the device shows it, as one a discovery has seen advertising.
    package func export(
        on fake: FakeBlueZ, abortedConnects: Int, offeringSockets: Bool = false, bonded: Bool = false,
        connectedBeforeAbort: Bool = false, stalledConnects: Int = 0, firmwareRevision: FirmwareRevision = .absent,
        servingDataService: Bool = true, rssi: Int16? = nil
    ) throws {
        let server = fake.connection
        let connects = Locked(0)
        try server.export(Self.device, interfaces: [
            DBusInterface("org.bluez.Device1", methods: [
                DBusMethod("Connect") { call in
                    fake.record(call)
                    self.connectArrived.open()
                    let attempt = connects.withLock { $0 += 1; return $0 }
                    if attempt <= abortedConnects {
                        if connectedBeforeAbort {
                            for connected in [true, false] {
                                try server.setProperties(["Connected": .bool(connected)], interface: "org.bluez.Device1", path: Self.device)
                            }
                        }
                        throw DBusError.remote(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
                    }
                    let stalls = attempt <= abortedConnects + stalledConnects
                    try server.setProperties(
                        ["Connected": .bool(true), "ServicesResolved": .bool(!stalls)], interface: "org.bluez.Device1",
                        path: Self.device)
                    return []
                },
                DBusMethod("Disconnect") { call in
                    fake.record(call)
                    self.disconnected.open()
                    try server.setProperties(
                        ["Connected": .bool(false), "ServicesResolved": .bool(false)], interface: "org.bluez.Device1",
                        path: Self.device)
                    return []
                },
            ], properties: [
                DBusProperty("Address", value: .string("00:AA:01:00:00:23")),
                DBusProperty("Name", value: .string("VPOS3356-1A2B")),
                DBusProperty("Adapter", value: .objectPath("/org/bluez/hci1")),
                DBusProperty("Connected", value: .bool(false)),
                DBusProperty("ServicesResolved", value: .bool(false)),
                DBusProperty("Paired", value: .bool(bonded)),
                DBusProperty("Bonded", value: .bool(bonded)),
            ] + (rssi.map { [DBusProperty("RSSI", value: .int16($0))] } ?? []))
        ])
        try exportDeviceInformation(on: fake, firmwareRevision: firmwareRevision)
        if servingDataService { try exportDataService(on: fake, offeringSockets: offeringSockets) }
    }

    /// Exports the ISSC data service, TX and RX, as `export` describes them: at export, or
    /// later, as bluetoothd adds a table's objects one after another.
    package func exportDataService(on fake: FakeBlueZ, offeringSockets: Bool = false) throws {
        let server = fake.connection
        let writeCalls = self.writeCalls
        try server.export(Self.service, interfaces: [
            DBusInterface("org.bluez.GattService1", properties: [
                DBusProperty("UUID", value: .string(Self.dataService.uuidString)),
                DBusProperty("Primary", value: .bool(true)),
            ])
        ])
        try server.export(Self.transmit, interfaces: [
            DBusInterface("org.bluez.GattCharacteristic1", methods: [
                DBusMethod("StartNotify") { call in
                    fake.record(call)
                    return []
                },
                DBusMethod("StopNotify") { call in
                    fake.record(call)
                    return []
                },
                DBusMethod("AcquireNotify", in: "a{sv}", out: "hq") { call in
                    fake.record(call)
                    return try Self.socketPair(keeping: self.acquiredNotify)
                },
            ], properties: [
                DBusProperty("UUID", value: .string(Self.transmitUUID.uuidString)),
                DBusProperty("Service", value: .objectPath(Self.service)),
                DBusProperty("Flags", value: .stringArray(["notify"])),
                DBusProperty("Value", value: .bytes([])),
            ] + (offeringSockets ? [DBusProperty("NotifyAcquired", value: .bool(false))] : []))
        ])
        let stuckWrite = self.stuckWrite
        try server.export(Self.receive, interfaces: [
            DBusInterface("org.bluez.GattCharacteristic1", methods: [
                DBusMethod("WriteValue", in: "aya{sv}") { call in
                    let value = call.arguments[0].bytesValue ?? []
                    if writeCalls.withLock({ $0 += 1; return $0 }) == 1 {
                        throw DBusError.remote(name: "org.bluez.Error.InProgress", message: "In Progress")
                    }
                    if value == [0xFF] {
                        stuckWrite.open()
                        try await Task.sleep(for: .seconds(60))
                    }
                    if value == [0xFE] { throw DBusError.remote(name: "org.bluez.Error.Failed", message: "Not connected") }
                    let type = call.arguments[1].stringDictionaryValue?["type"]?.stringValue ?? ""
                    self.writes.withLock { $0.append((value, type)) }
                    self.wrote.open()
                    return []
                },
                DBusMethod("AcquireWrite", in: "a{sv}", out: "hq") { call in
                    fake.record(call)
                    return try Self.socketPair(keeping: self.acquiredWrite)
                },
            ], properties: [
                DBusProperty("UUID", value: .string(Self.receiveUUID.uuidString)),
                DBusProperty("Service", value: .objectPath(Self.service)),
                DBusProperty("Flags", value: .stringArray(["write", "write-without-response"])),
                DBusProperty("MTU", value: .uint16(23)),
            ] + (offeringSockets ? [DBusProperty("WriteAcquired", value: .bool(false))] : []))
        ])
    }

    /// Exports Device Information with its firmware revision (nothing for `.absent`): at
    /// export, or later, as bluetoothd adds a table's objects one after another.
    package func exportDeviceInformation(on fake: FakeBlueZ, firmwareRevision: FirmwareRevision) throws {
        if case .absent = firmwareRevision { return }
        let server = fake.connection
        try server.export(Self.deviceInformation, interfaces: [
            DBusInterface("org.bluez.GattService1", properties: [
                DBusProperty("UUID", value: .string("0000180a-0000-1000-8000-00805f9b34fb")),
                DBusProperty("Primary", value: .bool(true)),
            ])
        ])
        try server.export(Self.firmwareRevision, interfaces: [
            DBusInterface("org.bluez.GattCharacteristic1", methods: [
                DBusMethod("ReadValue", in: "a{sv}", out: "ay") { call in
                    fake.record(call)
                    switch firmwareRevision {
                    case .absent: return [.bytes([])]
                    case .value(let bytes): return [.bytes(bytes)]
                    case .readFails(let name, let message): throw DBusError.remote(name: name, message: message)
                    }
                }
            ], properties: [
                DBusProperty("UUID", value: .string("00002a26-0000-1000-8000-00805f9b34fb")),
                DBusProperty("Service", value: .objectPath(Self.deviceInformation)),
                DBusProperty("Flags", value: .stringArray(["read"])),
            ])
        ])
    }

    /// A `SOCK_SEQPACKET` pair: one end is kept in `kept`, the other goes in the reply.
    private static func socketPair(keeping kept: Locked<Int32>) throws -> [DBusValue] {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw DBusError.remote(name: "org.bluez.Error.Failed", message: "socketpair: errno \(errno)")
        }
        kept.withLock { $0 = fds[0] }
        return [.unixFD(DBusUnixFileDescriptor(owning: fds[1])), .uint16(247)]
    }
}
