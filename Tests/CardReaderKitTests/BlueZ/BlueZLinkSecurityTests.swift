import BLETransport
import BlueZTestSupport
@testable import CardReaderKit
import CardReaderKitTesting
import Logging
import ManualClockSteps
import Testing

/// How the connector decides a link's security from Device Information's firmware revision
/// (reader documentation §1.1), against a fake bluetoothd on a private dbus-daemon: a revision
/// the reader gives or refuses decides; one that could not be asked (the link failing under
/// the read, a table bluetoothd has not exported yet) fails the attempt as the link failure
/// it is, never as `not-paired`, which no reconnection retries. The error names and messages
/// are bluetoothd 5.66's (`create_gatt_dbus_error` and `read_check_cb` in src/gatt-client.c).
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct BlueZLinkSecurityTests {
    /// A fake bluetoothd serving one reader on hci1, and a session to it on a manual clock.
    struct Rig {
        let bus: TestBus
        let fake: FakeBlueZ
        let reader = FakeReader()
        let clock = ManualClock()
        let session: BluetoothSession
        let adapter: BluetoothAdapter

        init(firmwareRevision: FakeReader.FirmwareRevision, servingDataService: Bool = true) async throws {
            bus = try await TestBus.start()
            fake = try await FakeBlueZ.start(on: bus)
            try fake.addAdapter("hci1", powered: true)
            try reader.export(
                on: fake, abortedConnects: 0, firmwareRevision: firmwareRevision, servingDataService: servingDataService)
            session = try await BluetoothSession.open(busAddress: bus.address, clock: clock)
            adapter = try await session.adapter(named: "hci1")
        }

        /// Opens the link as a connect does, in a task of its own.
        func open() async throws -> Task<BlueZReaderLink, any Error> {
            let found = try #require(try await adapter.knownDevices().first)
            let adapter = self.adapter
            return Task {
                try await BlueZReaderConnector.openLink(
                    to: found, on: adapter, until: .seconds(30), attempts: 1, valueTransport: .dbusMessages,
                    maximumMTU: 247, ownsSession: false, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            }
        }

        func close() async {
            await session.close()
            await fake.connection.close()
            withExtendedLifetime(bus) {}
        }
    }

    @Test func aReaderGivingAFirmwareRevisionBefore3Point0OpensUnencrypted() async throws {
        let rig = try await Rig(firmwareRevision: .value(Array("2.4.1\0".utf8)))
        let link = try await rig.open().value
        #expect(link.security == .unencrypted)
        #expect(rig.fake.recorded("ReadValue").count == 1)
        await link.close()
        await rig.close()
    }

    @Test func aReaderFrom3Point0WithoutABondIsNotPairedAndDisconnectedBeforeTXIsTouched() async throws {
        let rig = try await Rig(firmwareRevision: .value(Array("3.1.0".utf8)))
        let error = await #expect(throws: LinkError.self) { try await rig.open().value }
        #expect(error?.code == .notPaired)
        #expect(rig.fake.recorded("Disconnect").count == 1)
        #expect(rig.fake.recorded("StartNotify").isEmpty)
        await rig.close()
    }

    /// A table without Device Information, once BlueZ's object tree has had time to settle,
    /// but with the data service: a reader that gives no revision, taken as 3.0 or later.
    @Test func aReaderWithoutDeviceInformationIsTakenAs3Point0AfterTheTreeSettles() async throws {
        let rig = try await Rig(firmwareRevision: .absent)
        let opening = try await rig.open()
        try await rig.clock.advance(pastSleepOf: BlueZReaderLink.settleTime)
        let error = await #expect(throws: LinkError.self) { try await opening.value }
        #expect(error?.code == .notPaired)
        await rig.close()
    }

    /// bluez issue 1489: services resolved before every object is exported. Device
    /// Information that shows up during the settle is read.
    @Test func deviceInformationExportedDuringTheSettleIsRead() async throws {
        let rig = try await Rig(firmwareRevision: .absent)
        let opening = try await rig.open()
        try await rig.clock.waitForSleepers(
            dueNoSoonerThan: BlueZReaderLink.settleTime, dueWithin: BlueZReaderLink.settleTime, within: WaitBound.inProcess)
        try rig.reader.exportDeviceInformation(on: rig.fake, firmwareRevision: .value(Array("2.4.1".utf8)))
        rig.clock.advance(by: BlueZReaderLink.settleTime)
        let link = try await opening.value
        #expect(link.security == .unencrypted)
        await link.close()
        await rig.close()
    }

    /// bluez issue 1489 on the data service: TX and RX exported during the settle are bound.
    @Test func aDataServiceExportedDuringTheSettleIsBound() async throws {
        let rig = try await Rig(firmwareRevision: .value(Array("2.4.1".utf8)), servingDataService: false)
        let opening = try await rig.open()
        try await rig.clock.waitForSleepers(
            dueNoSoonerThan: BlueZReaderLink.settleTime, dueWithin: BlueZReaderLink.settleTime, within: WaitBound.inProcess)
        #expect(rig.fake.recorded("StartNotify").isEmpty)
        try rig.reader.exportDataService(on: rig.fake)
        rig.clock.advance(by: BlueZReaderLink.settleTime)
        let link = try await opening.value
        #expect(link.security == .unencrypted)
        #expect(rig.fake.recorded("StartNotify").count == 1)
        await link.close()
        await rig.close()
    }

    /// A data service still missing once the tree settled is `missing-attribute`, whose fix
    /// first says to connect again, then how BlueZ 5.66 lets go of a bonded device's table.
    @Test func aDataServiceStillMissingAfterTheSettleIsAMissingAttribute() async throws {
        let rig = try await Rig(firmwareRevision: .value(Array("2.4.1".utf8)), servingDataService: false)
        let opening = try await rig.open()
        try await rig.clock.advance(pastSleepOf: BlueZReaderLink.settleTime)
        let error = await #expect(throws: LinkError.self) { try await opening.value }
        #expect(error?.code == .missingAttribute)
        let fix = try #require(error?.fix)
        #expect(fix.hasPrefix("connect again"))
        #expect(fix.contains("bluetoothd restarts") && fix.contains("pairing mode"))
        #expect(rig.fake.recorded("Disconnect").count == 1)
        await rig.close()
    }

    /// Neither Device Information nor the data service: bluetoothd has not exported the
    /// table yet, or the device is no reader. Either way a retry can tell; `not-paired` would
    /// send someone to the reader's pairing mode for nothing.
    @Test func aTableWithNeitherDeviceInformationNorTheDataServiceIsAMissingAttribute() async throws {
        let rig = try await Rig(firmwareRevision: .absent, servingDataService: false)
        let opening = try await rig.open()
        try await rig.clock.advance(pastSleepOf: BlueZReaderLink.settleTime)
        let error = await #expect(throws: LinkError.self) { try await opening.value }
        #expect(error?.code == .missingAttribute)
        #expect(error?.detail.contains("neither Device Information nor the reader's data service") == true)
        #expect(rig.fake.recorded("Disconnect").count == 1)
        await rig.close()
    }

    /// The reader's own refusal, an ATT Error Response, as bluetoothd maps it.
    @Test(arguments: [
        ("org.bluez.Error.NotPermitted", "Read not permitted"),
        ("org.bluez.Error.NotPermitted", "Not paired"),
        ("org.bluez.Error.NotAuthorized", "Operation Not Authorized"),
        ("org.bluez.Error.Failed", "Operation failed with ATT error: 0x80"),
    ])
    func aRevisionTheReaderRefusesIsTakenAs3Point0(name: String, message: String) async throws {
        let rig = try await Rig(firmwareRevision: .readFails(name: name, message: message))
        let error = await #expect(throws: LinkError.self) { try await rig.open().value }
        #expect(error?.code == .notPaired)
        await rig.close()
    }

    /// A read that failed on the way: no answer from the reader, so nothing to decide on.
    /// The attempt fails with BlueZ's error, and a reconnection tries again.
    @Test(arguments: [
        ("org.bluez.Error.Failed", "Not connected"),
        ("org.bluez.Error.Failed", "Operation failed"),
        ("org.bluez.Error.InProgress", "In Progress"),
        ("org.freedesktop.DBus.Error.UnknownObject", "Method \"ReadValue\" doesn't exist"),
    ])
    func aRevisionReadThatFailedOnTheWayFailsTheAttemptWithBlueZsError(name: String, message: String) async throws {
        let rig = try await Rig(firmwareRevision: .readFails(name: name, message: message))
        let error = await #expect(throws: LinkError.self) { try await rig.open().value }
        #expect(error?.code != .notPaired)
        #expect(error?.code.rawValue == name)
        #expect(error?.detail.contains(message) == true)
        #expect(rig.fake.recorded("Disconnect").count == 1)
        await rig.close()
    }
}
