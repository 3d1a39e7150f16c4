import BLETransport
import BlueZTestSupport
import CardReaderKit
import Testing

/// A fleet spanning adapters, against a fake bluetoothd on a private dbus-daemon whose
/// adapters report readers when a discovery starts: a reader seen on several adapters is
/// reached through the one that holds its bond, else the one with the fewest links in use;
/// an adapter that comes back under another `hciN` (the same address) serves the fleet again.
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct BlueZReaderFleetAdapterTests {
    /// A device as an adapter's discovery reports it.
    struct Sighting: Sendable {
        var address: String
        var name: String
        var rssi: Int16 = -60
        var connected = false
        var bonded = false
    }

    static let lane1 = "00:11:22:33:44:01"
    static let lane2 = "00:11:22:33:44:02"

    /// Exports adapter `name` at `address`, whose discovery reports `sightings` (each a
    /// device below the adapter) once it starts; devices connected or bonded are there
    /// from the start, as BlueZ knows them.
    static func addAdapter(_ name: String, address: String, on fake: FakeBlueZ, sightings: [Sighting]) throws {
        let adapter = DBusObjectPath("/org/bluez/\(name)")
        @Sendable func export(_ sighting: Sighting) throws {
            try fake.connection.export(
                adapter.appending("dev_" + sighting.address.split(separator: ":").joined(separator: "_")),
                interfaces: [
                    DBusInterface("org.bluez.Device1", properties: [
                        DBusProperty("Address", value: .string(sighting.address)),
                        DBusProperty("Name", value: .string(sighting.name)),
                        DBusProperty("Adapter", value: .objectPath(adapter)),
                        DBusProperty("RSSI", value: .int16(sighting.rssi)),
                        DBusProperty("Connected", value: .bool(sighting.connected)),
                        DBusProperty("Paired", value: .bool(sighting.bonded)),
                        DBusProperty("Bonded", value: .bool(sighting.bonded)),
                    ])
                ])
        }
        try fake.addAdapter(
            name, address: address, powered: true,
            methods: [
                DBusMethod("SetDiscoveryFilter", in: "a{sv}") { _ in [] },
                DBusMethod("StartDiscovery") { _ in
                    for sighting in sightings where !sighting.connected && !sighting.bonded { try export(sighting) }
                    return []
                },
                DBusMethod("StopDiscovery") { _ in [] },
            ])
        for sighting in sightings where sighting.connected || sighting.bonded { try export(sighting) }
    }

    /// hci3 already holds two links (a scanner and a printer, say); hci4 none. The lane's
    /// reader, in range of both, goes through hci4; the reader bonded with hci3 stays there,
    /// however loaded hci3 is.
    @Test func aReaderInRangeOfTwoAdaptersGoesThroughItsBondElseTheLeastLoaded() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        try Self.addAdapter(
            "hci3", address: "00:AA:01:00:00:03", on: fake,
            sightings: [
                Sighting(address: "00:11:22:33:55:01", name: "Scanner", connected: true),
                Sighting(address: "00:11:22:33:55:02", name: "Printer", connected: true),
                Sighting(address: Self.lane1, name: "VPOS3356-0001", rssi: -40),
                Sighting(address: Self.lane2, name: "VPOS3356-0002", bonded: true),
            ])
        try Self.addAdapter(
            "hci4", address: "00:AA:01:00:00:04", on: fake,
            sightings: [
                Sighting(address: Self.lane1, name: "VPOS3356-0001", rssi: -70),
                Sighting(address: Self.lane2, name: "VPOS3356-0002"),
            ])
        let fleet = try await BlueZReaderFleet.open(adapters: ["hci3", "hci4"], busAddress: bus.address)
        #expect(fleet.adapterNames == ["hci3", "hci4"])
        let found = try await fleet.find(["VPOS3356-0001", "VPOS3356-0002"], timeout: .seconds(30))
        // The stronger signal on hci3 does not outweigh its two links.
        #expect(found["VPOS3356-0001"]?.adapterAddress == "00:AA:01:00:00:04")
        #expect(found["VPOS3356-0002"]?.adapterAddress == "00:AA:01:00:00:03")
        #expect(found["VPOS3356-0002"]?.isBonded == true)
        await fleet.close()
    }

    /// The fleet's adapter goes (unplugged) and comes back as hci5 with its address: the
    /// fleet finds its readers there again.
    @Test func anAdapterBackUnderAnotherNameServesTheFleetAgain() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        let address = "00:AA:01:00:00:04"
        let lane = [Sighting(address: Self.lane1, name: "VPOS3356-0001")]
        try Self.addAdapter("hci4", address: address, on: fake, sightings: lane)
        let fleet = try await BlueZReaderFleet.open(adapters: ["hci4"], busAddress: bus.address)
        let before = try await fleet.find(["VPOS3356-0001"], timeout: .seconds(30))
        #expect(before["VPOS3356-0001"]?.adapterAddress == address)

        fake.connection.unexport("/org/bluez/hci4/dev_00_11_22_33_44_01")
        fake.connection.unexport("/org/bluez/hci4")
        try Self.addAdapter("hci5", address: address, on: fake, sightings: lane)
        let after = try await fleet.find(["VPOS3356-0001"], timeout: .seconds(30))
        #expect(after["VPOS3356-0001"]?.adapterAddress == address)
        #expect(after["VPOS3356-0001"]?.summary == "VPOS3356-0001 (\(Self.lane1))")
        await fleet.close()
    }
}
