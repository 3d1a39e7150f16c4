import BLETransport
import Testing

/// The BlueZ layer's value types: no bus, no radio.
@Suite struct BlueZValueTests {
    @Test func uuidsExpandShortFormsAndCompareCaseInsensitively() {
        #expect(BluetoothUUID(parsing: "180A")?.uuidString == "0000180a-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID(parsing: "0000180a") == BluetoothUUID(parsing: "180a"))
        #expect(BluetoothUUID(parsing: "49535343-FE7D-4AE5-8FA9-9FAFD205E455")?.uuidString == "49535343-fe7d-4ae5-8fa9-9fafd205e455")
        #expect(BluetoothUUID(parsing: "180a")?.description == "180a")
        #expect(BluetoothUUID(parsing: "49535343-fe7d-4ae5-8fa9-9fafd205e455")?.shortForm == nil)
        #expect(BluetoothUUID(parsing: "18Z0") == nil)
        #expect(BluetoothUUID(parsing: "49535343fe7d4ae58fa99fafd205e455") == nil)
        #expect(BluetoothUUID(parsing: "4953534-3fe7d-4ae5-8fa9-9fafd205e455") == nil)
        let literal: BluetoothUUID = "2A19"
        #expect(literal == BluetoothUUID(parsing: "00002a19-0000-1000-8000-00805f9b34fb"))
    }

    static let deviceProperties: [String: DBusValue] = [
        "Address": .string("00:AA:01:00:00:23"), "AddressType": .string("public"),
        "Name": .string("VPOS3356-1A2B"), "Alias": .string("VPOS3356-1A2B"),
        "Adapter": .objectPath("/org/bluez/hci1"), "RSSI": .int16(-60),
        "UUIDs": .stringArray(["0000180a-0000-1000-8000-00805f9b34fb"]),
        "Connected": .bool(false), "ServicesResolved": .bool(false),
    ]

    @Test func deviceInfoParsesAndFollowsPropertiesChanged() throws {
        var device = try #require(
            BluetoothDeviceInfo(path: "/org/bluez/hci1/dev_00_AA_01_00_00_23", properties: Self.deviceProperties))
        #expect(device.address == "00:AA:01:00:00:23")
        #expect(device.adapterPath == "/org/bluez/hci1")
        #expect(device.rssi == -60)
        #expect(device.serviceUUIDs == ["180a"])
        #expect(device.summary == "VPOS3356-1A2B (00:AA:01:00:00:23)")
        device.apply(changed: ["Connected": .bool(true), "RSSI": .int16(-40)], invalidated: [])
        #expect(device.isConnected && device.rssi == -40)
        device.apply(changed: ["ServicesResolved": .bool(true)], invalidated: ["RSSI"])
        #expect(device.servicesResolved && device.rssi == nil)
        #expect(BluetoothDeviceInfo(path: "/x", properties: ["Name": .string("no address")]) == nil)
    }

    /// `Paired`, `Bonded` and `Trusted` as org.bluez.Device1 names them (BlueZ 5.66
    /// doc/device-api.txt); a device BlueZ reports without them (older BlueZ has no
    /// `Bonded`) is taken as neither.
    @Test func deviceInfoFollowsPairingAndBondState() throws {
        var device = try #require(BluetoothDeviceInfo(path: "/org/bluez/hci1/dev_1", properties: Self.deviceProperties))
        #expect(!device.isPaired && !device.isBonded && !device.isTrusted)
        device.apply(changed: ["Paired": .bool(true)], invalidated: [])
        #expect(device.isPaired && !device.isBonded)
        device.apply(changed: ["Bonded": .bool(true), "Trusted": .bool(true)], invalidated: [])
        #expect(device.isPaired && device.isBonded && device.isTrusted)
        var properties = Self.deviceProperties
        properties["Paired"] = .bool(true)
        properties["Bonded"] = .bool(true)
        let bonded = try #require(BluetoothDeviceInfo(path: "/org/bluez/hci1/dev_2", properties: properties))
        #expect(bonded.isPaired && bonded.isBonded && !bonded.isTrusted)
        device.apply(changed: ["Bonded": .bool(false), "Paired": .bool(false)], invalidated: [])
        #expect(!device.isPaired && !device.isBonded)
    }

    @Test func discoveryFilterMatchesAnyGivenCriterion() throws {
        let reader = try #require(BluetoothDeviceInfo(path: "/org/bluez/hci1/dev_1", properties: Self.deviceProperties))
        var unnamed = reader
        unnamed.name = nil
        unnamed.alias = "00-AA-01-00-00-23"
        unnamed.serviceUUIDs = []
        #expect(DiscoveryFilter().matches(unnamed))
        #expect(DiscoveryFilter(namePrefix: "VPOS").matches(reader))
        #expect(DiscoveryFilter(namePrefix: "VPOS3356-1A2B").matches(reader))
        #expect(!DiscoveryFilter(namePrefix: "VPOS").matches(unnamed))
        #expect(DiscoveryFilter(namePrefix: "VPOS", serviceUUIDs: ["180a"]).matches(reader))
        #expect(!DiscoveryFilter(serviceUUIDs: ["49535343-fe7d-4ae5-8fa9-9fafd205e455"]).matches(reader))
        #expect(DiscoveryFilter(address: "00:aa:01:00:00:23").matches(unnamed))
        #expect(DiscoveryFilter.isAddress("00:AA:01:00:00:23"))
        #expect(!DiscoveryFilter.isAddress("VPOS3356-1A2B"))
        #expect(!DiscoveryFilter.isAddress("00:AA:01:00:00"))
    }

    /// With bluetoothd down, a call to org.bluez gets ServiceUnknown, or (when the bus tries
    /// to start it and its launch helper fails, as seen in the VM) Spawn.ChildExited: both
    /// mean bluetoothd is not running. Other BlueZ errors keep their name.
    @Test(arguments: [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.Spawn.ChildExited", "org.freedesktop.DBus.Error.Spawn.ServiceNotFound",
    ])
    func noOwnerForOrgBluezIsBluetoothdNotRunning(name: String) {
        let error = BluetoothError(.remote(name: name, message: "m"), operation: "reading BlueZ objects")
        #expect(error.code.rawValue == "bluetoothd-not-running")
        let other = BluetoothError(.remote(name: "org.bluez.Error.Failed", message: "m"), operation: "connecting")
        #expect(other.code.rawValue == "org.bluez.Error.Failed")
    }

    /// BlueZ's documented reasons for a failed Connect (org.bluez.Device1 docs, src/error.h)
    /// become their own codes when the message is exactly the reason; any other message,
    /// even one containing a reason, keeps the error name. Only aborted attempts and
    /// InProgress are worth another Connect.
    @Test func bluezConnectFailureReasonsAreCodesMatchedWhole() {
        func code(_ name: String, _ message: String) -> BluetoothError.Code {
            BluetoothError.Code(dbusErrorName: name, message: message)
        }
        #expect(code("org.bluez.Error.Failed", "le-connection-abort-by-local").rawValue == "le-connection-abort-by-local")
        #expect(code("org.bluez.Error.Failed", "le-connection-abort-by-remote").rawValue == "le-connection-abort-by-remote")
        #expect(code("org.bluez.Error.Failed", "le-connection-timeout").rawValue == "le-connection-timeout")
        #expect(code("org.bluez.Error.Failed", "Software caused connection abort").rawValue == "connection-aborted")
        #expect(code("org.bluez.Error.Failed", "not le-connection-abort-by-local").rawValue == "org.bluez.Error.Failed")
        #expect(code("org.bluez.Error.NotReady", "le-connection-abort-by-local").rawValue == "org.bluez.Error.NotReady")
        #expect(code("org.bluez.Error.InProgress", "Operation already in progress").isTransientConnectFailure)
        #expect(code("org.bluez.Error.Failed", "le-connection-abort-by-local").isTransientConnectFailure)
        #expect(!code("org.bluez.Error.Failed", "le-connection-timeout").isTransientConnectFailure)
        #expect(!code("org.bluez.Error.Failed", "Input/output error").isTransientConnectFailure)
    }

    @Test func valuesCarryAtMostMTUMinusThree() {
        // Core spec Vol 3 Part F 3.4.7.1 / 3.4.5.3: a notification or write carries at most
        // ATT_MTU − 3 bytes; 23 is the default ATT_MTU.
        #expect(GattPayload.maximumLength(mtu: nil) == 20)
        #expect(GattPayload.maximumLength(mtu: 23) == 20)
        #expect(GattPayload.maximumLength(mtu: 247) == 244)
        #expect(GattPayload.maximumLength(mtu: 10) == 20)
    }

    @Test func writeTypeFollowsTheFlags() {
        func characteristic(_ flags: [String]) -> GattCharacteristic {
            GattCharacteristic(
                GattCharacteristicInfo(
                    path: "/c", servicePath: "/s", uuid: "2a00", flags: flags, mtu: nil, value: nil, descriptors: []),
                serviceUUID: "1800")
        }
        #expect(characteristic(["write", "write-without-response"]).defaultWriteType == .request)
        #expect(characteristic(["write-without-response"]).defaultWriteType == .command)
        #expect(characteristic(["notify"]).defaultWriteType == nil)
        #expect(characteristic(["notify"]).canNotify)
    }

    @Test func dbusErrorsMapToTypedBluetoothErrorsKeepingTheirNames() {
        let absent = BluetoothError(
            .remote(name: DBusErrorName.serviceUnknown, message: "The name org.bluez was not provided"), operation: "x")
        #expect(absent.code.rawValue == "bluetoothd-not-running")
        let failed = BluetoothError(
            .remote(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"), operation: "Connect")
        #expect(failed.code.rawValue == "le-connection-abort-by-local")
        #expect(failed.description == "Connect failed: org.bluez.Error.Failed: le-connection-abort-by-local")
        #expect(BluetoothError(.cancelled, operation: "x") == .cancelled)
        #expect(BluetoothError.linkLost(.bluetoothdRestarted(newOwner: ":1.9")).code.rawValue == "bluetoothd-restarted")
        #expect(BluetoothError.noSuchAdapter("hci9", available: ["hci0"]).description == "no Bluetooth adapter named hci9 (adapters: hci0)")
    }

    @Test func gattTableGroupsBlueZObjectsByDevice() throws {
        let device: DBusObjectPath = "/org/bluez/hci1/dev_1"
        let service = device.appending("service000a")
        let characteristic = service.appending("char000b")
        let objects: [DBusObjectPath: [String: [String: DBusValue]]] = [
            device: ["org.bluez.Device1": ["Address": .string("00:AA:01:00:00:23")]],
            service: ["org.bluez.GattService1": ["UUID": .string("0000180f-0000-1000-8000-00805f9b34fb"), "Primary": .bool(true)]],
            characteristic: ["org.bluez.GattCharacteristic1": [
                "UUID": .string("00002a19-0000-1000-8000-00805f9b34fb"), "Service": .objectPath(service),
                "Flags": .stringArray(["read", "notify"]), "MTU": .uint16(247),
            ]],
            characteristic.appending("desc000d"): ["org.bluez.GattDescriptor1": [
                "UUID": .string("00002902-0000-1000-8000-00805f9b34fb"), "Characteristic": .objectPath(characteristic),
            ]],
            "/org/bluez/hci1/dev_2/service0001": ["org.bluez.GattService1": ["UUID": .string("1800")]],
        ]
        let table = GattTable(objects: objects, devicePath: device)
        #expect(table.services.map(\.uuid) == ["180f"])
        let battery = try #require(table.service("180f")?.characteristic("2a19"))
        #expect(battery.flags == ["read", "notify"])
        #expect(battery.mtu == 247)
        #expect(battery.descriptors.map(\.uuid) == ["2902"])
    }

    @Test func gattRequestOptionsParse() {
        let request = GattRequest(options: [
            "device": .objectPath("/org/bluez/hci0/dev_1"), "mtu": .uint16(247), "type": .string("command"),
            "link": .string("LE"),
        ])
        #expect(request == GattRequest(device: "/org/bluez/hci0/dev_1", mtu: 247, writeType: "command", offset: 0, link: "LE"))
    }
}
