import BLETransport
import BlueZTestSupport
@testable import CardReaderKit
import CardReaderKitTesting
@testable import EmulatedPeripheral
import Locking
import ManualClockSteps
import ReaderProtocol
import Testing

/// RX writes over BlueZ, against a fake bluetoothd on a private dbus-daemon that offers
/// `AcquireWrite` as a stock bluetoothd does: the reader link still writes Write Requests
/// (`WriteValue`, type `request`), which keep their order over several ATT bearers, and a
/// frame longer than one write leaves as packets of MTU − 3 that put back together are the
/// frame (the frame's bytes come from the documented layout, §2, checked in FrameTests).
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct BlueZReaderLinkWriteTests {
    struct Opened: ReaderConnector {
        let link: BlueZReaderLink
        var readerDescription: String { "fake reader" }
        func connect() async throws(LinkError) -> any ReaderLink { link }
    }

    @Test func aLongAPDUFrameLeavesAsWriteRequestsInOrderEvenWhereAcquireWriteIsOffered() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        try fake.addAdapter("hci1", powered: true)
        let peripheral = FakeReader()
        try peripheral.export(on: fake, abortedConnects: 0, offeringSockets: true)
        // The first write is answered "in progress": the link writes again after a back-off.
        let clock = ManualClock()
        let stepper = ClockStepper(clock, throughSleepsWithin: .milliseconds(100))
        defer { stepper.stop() }
        let session = try await BluetoothSession.open(busAddress: bus.address, clock: clock)
        let adapter = try await session.adapter(named: "hci1")
        let connection = try await adapter.device(at: FakeReader.device).connect(timeout: .seconds(5))
        let link = try await BlueZReaderLink.bind(connection)
        #expect(link.transport == BlueZReaderLink.Transport(notifications: .acquiredSocket, writes: .request))
        #expect(fake.recorded("AcquireWrite").isEmpty)
        #expect(await link.maximumWriteLength == 20)  // RX's MTU property is 23

        // SELECT with 255 data bytes and Le 256: a 268-byte frame, 14 writes at MTU 23.
        let data = (0..<255).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let apdu = try CommandAPDU(parsing: [0x00, 0xA4, 0x04, 0x00, 0xFF] + data + [0x00])
        let frame = try ReaderCommand.iccAPDU(apdu).frame.encoded()
        #expect(frame.count == 268)
        // The fake reader's device is not bonded, so the link is unencrypted: allowed here.
        #expect(link.security == .unencrypted)
        let readerClock = ManualClock()
        let reader = CardReader(
            connector: Opened(link: link), configuration: CardReader.Configuration(allowsUnencryptedLink: true),
            clock: readerClock)
        try await reader.connect()
        // The fake reader never answers: the exchange is cancelled once the frame is out, and
        // ends when the cancelled command's shortened deadline passes.
        let exchange = Task { _ = try? await reader.transmit(apdu) }
        while peripheral.writes.withLock({ $0.count }) < 14 { try await peripheral.wrote.wait() }
        let packets = Array(peripheral.writes.withLock { $0 }.prefix(14))
        exchange.cancel()
        await readerClock.advancing(throughSleepsWithin: .seconds(2)) { await exchange.value }
        #expect(packets.allSatisfy { $0.1 == "request" })
        #expect(packets.allSatisfy { $0.0.count <= 20 })
        #expect(packets.flatMap(\.0) == frame)
        await reader.disconnect()
        await session.close()
        await fake.connection.close()
    }

    /// bluetoothd cuts each value of a Multiple Handle Value Notification to the MTU − 5
    /// (BlueZ's `bt_gatt_server_send_notification`: the PDU holds MTU − 1 bytes, each value
    /// follows a 2-byte handle and a 2-byte length), so the emulated peripheral notifies that
    /// much: 242 bytes at MTU 247, 18 at 23. (At MTU 247 on one bearer, 244-byte
    /// notifications arrived 2 bytes short in the bluez-vm guest.)
    @Test func theEmulatedPeripheralNotifiesWhatAMultipleNotificationCarries() {
        #expect(EmulatedReaderPeripheral.notificationLength(mtu: 247) == 242)
        #expect(EmulatedReaderPeripheral.notificationLength(mtu: 23) == 18)
    }
}
