import CardReaderKit
import CardReaderKitTesting
import Foundation
import ManualClockSteps
import ReaderProtocol
import Testing

/// The table an emulated reader's firmware serves (decisions in Docs/link-security.md):
/// protected from 3.0 (reader documentation §1.1), the data service last from 3.2.
struct EmulatedGattLayoutTests {
    @Test(arguments: [
        ("2.4.1", false, EmulatedGattLayout.ServiceOrder.dataServiceFirst),
        ("3.0.2", true, .dataServiceFirst),
        ("3.1.0", true, .dataServiceFirst),
        ("3.2.0", true, .dataServiceLast),
        ("v3.10", true, .dataServiceLast),
        ("10.0", true, .dataServiceLast),
        ("2", false, .dataServiceFirst),
        // Missing or unreadable: the newest table, as the security policy takes it for 3.0+.
        ("beta", true, .dataServiceLast),
    ])
    func theTableFollowsTheFirmware(revision: String, protected: Bool, order: EmulatedGattLayout.ServiceOrder) {
        let layout = EmulatedGattLayout(firmwareRevision: revision)
        #expect(layout.protectsDataService == protected)
        #expect(layout.order == order)
    }

    /// An update from 3.1.0 to the fixture image 3.2.0 (`Fixtures/firmware/vpos3356-3.2.0.vfw`)
    /// changes the table the reader serves once it has restarted; the bond stays. The clock
    /// steps through the reader's restart: it drops the link 10 ms after verifying the
    /// image and is back 50 ms later.
    @Test func anUpdateTo3Point2MovesTheDataService() async throws {
        let clock = ManualClock()
        let emulator = EmulatedReader(
            configuration: EmulatedReaderConfiguration(
                firmwareDisconnectDelay: .milliseconds(10), firmwareRestartTime: .milliseconds(50)),
            clock: clock)
        #expect(await emulator.gattLayout.order == .dataServiceFirst)
        let reader = CardReader(connector: EmulatedReaderConnector(reader: emulator), clock: clock)
        try await reader.connect()
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Fixtures/firmware/vpos3356-3.2.0.vfw")
        let image = try FirmwareImage(bytes: Array(try Data(contentsOf: file)))
        let report = try await clock.advancing(throughSleepsWithin: .milliseconds(50)) {
            try await reader.updateFirmware(image: image).run()
        }
        #expect(report.previousVersion == "3.1.0" && report.version == "3.2.0")
        #expect(await emulator.gattLayout == EmulatedGattLayout(firmwareRevision: "3.2.0"))
        #expect(await emulator.gattLayout.order == .dataServiceLast)
        #expect(await emulator.bondedHosts == [EmulatedHost.installedAddress])
        #expect(await reader.linkSecurity == .encrypted)
    }
}
