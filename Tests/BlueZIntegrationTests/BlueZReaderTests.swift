import BLETransport
import CardReaderKit
import CardReaderKitTesting
import EmulatedPeripheral
import Foundation
import Testing

/// CardReader over a real bluetoothd: the emulated reader is a BLE peripheral on hci0,
/// the host a central on hci1 (btvirt connects the two). Runs only in the bluez-vm guest:
/// `Scripts/bluez-vm/run -- .build-bluez/debug/CardReaderKitPackageTests.xctest
///  --testing-library swift-testing --filter BlueZIntegration`.
@Suite(.serialized, .enabled(if: inBlueZVM, "needs bluetoothd: run in Scripts/bluez-vm/run"))
struct BlueZIntegrationTests {
    static let peripheralAdapter = "hci0"
    static let centralAdapter = "hci1"

    init() {
        _ = testLogging
    }

    /// Serves an emulated reader on firmware 3.1.0 (it needs pairing), or with `legacy` on
    /// 2.4.1 (no pairing, an unencrypted link). The tests that kill or restart the stack
    /// under a live link use a legacy reader: in this guest one bluetoothd is both host and
    /// reader, and BlueZ 5.66 in its reader role crashes now and then when a bonded
    /// central's link drops while it is being set up (`gatt-database.c: att_disconnected`),
    /// which would fail the host's reconnection for a reason no real reader has.
    func startPeripheral(_ scenario: [String], legacy: Bool = false) async throws -> EmulatedReaderPeripheral {
        var configuration = EmulatedReaderConfiguration()
        if legacy { configuration.info.firmwareVersion = "2.4.1" }
        let reader = EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: scenario), configuration: configuration)
        return try await EmulatedReaderPeripheral.start(reader: reader, adapter: Self.peripheralAdapter)
    }

    /// Serves a fresh emulated reader for `body` (both sides forget what they knew, so
    /// every test starts disconnected, unpaired and with a fresh GATT cache), pairs with it
    /// (firmware 3.1.0 needs an encrypted link: Just Works, in its pairing mode), and stops
    /// it after.
    func withPeripheral(
        _ scenario: [String], legacy: Bool = false, _ body: (EmulatedReaderPeripheral) async throws -> Void
    ) async throws {
        try await forgetDevices()
        let peripheral = try await startPeripheral(scenario, legacy: legacy)
        do {
            if !legacy { try await pairWithReader() }
            try await body(peripheral)
        } catch {
            await peripheral.stop()
            throw error
        }
        await peripheral.stop()
    }

    /// Pairs with the reader just started (Just Works, in its pairing mode).
    func pairWithReader() async throws {
        #expect(try await connector.pair(PairingRequest(timeout: .seconds(30))) == .paired(.justWorks))
    }

    func forgetDevices() async throws {
        let session = try await BluetoothSession.open()
        for adapterName in [Self.centralAdapter, Self.peripheralAdapter] {
            let adapter = try await session.adapter(named: adapterName)
            for device in try await adapter.knownDevices() {
                try await adapter.removeDevice(at: device.path)
            }
        }
        await session.close()
    }

    func cardReader(_ connector: any ReaderConnector) -> CardReader {
        CardReader(connector: connector, configuration: CardReader.Configuration(connectTimeout: .seconds(30)))
    }

    /// A reader for a legacy (2.4.1) peripheral: its link is unencrypted.
    func legacyReader(reconnect: ReconnectPolicy? = nil) -> CardReader {
        CardReader(
            connector: connector,
            configuration: CardReader.Configuration(connectTimeout: .seconds(30), reconnect: reconnect, allowsUnencryptedLink: true))
    }

    var connector: BlueZReaderConnector { connector(.acquiredSocket) }

    func connector(_ transport: BlueZValueTransport) -> BlueZReaderConnector {
        BlueZReaderConnector(reader: "VPOS3356-", adapter: Self.centralAdapter, timeout: .seconds(30), valueTransport: transport)
    }

    @Test func discoveryFindsTheEmulatedReaderByNamePrefix() async throws {
        try await withPeripheral([]) { peripheral in
        let session = try await BluetoothSession.open()
        let adapter = try await session.adapter(named: Self.centralAdapter)
        let discovery = try await adapter.discover(DiscoveryFilter(namePrefix: "VPOS"))
        let found = try await within(.seconds(20), "discovering the reader") {
            for try await device in discovery where device.name == peripheral.localName && device.rssi != nil {
                return device
            }
            throw TestFailure("discovery ended")
        }
        await discovery.stop()
        #expect(found.name == peripheral.localName)

        // The GATT table of the reader, as `readerctl gatt` shows it.
        let connection = try await adapter.device(at: found.path).connect(timeout: .seconds(20))
        let table = try await connection.gattTable()
        #expect(table.characteristic("2a24", inService: "180a")?.value == Array("VPOS3356".utf8))
        #expect(table.service("180f")?.characteristic("2a19")?.value == [85])
        let data = try #require(table.service(BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService)))
        #expect(data.characteristic(BluetoothUUID(stringLiteral: ReaderGATTProfile.transmitCharacteristic))?.flags == ["notify"])
        let missing = await #expect(throws: BluetoothError.self) {
            try await connection.characteristic("2a00", inService: "1234")
        }
        #expect(missing?.code.rawValue == "missing-attribute")
        await connection.disconnect()
        await session.close()
        }
    }

    /// bluetoothd offers AcquireNotify on TX (notify): the default link takes notifications
    /// over its socket, a link asked for D-Bus messages uses StartNotify; either way RX
    /// writes are Write Requests (WriteValue), which keep their order on a link with several
    /// ATT bearers. A whole session runs over each.
    @Test(arguments: [BlueZValueTransport.acquiredSocket, .dbusMessages])
    func aWholeSessionOverBlueZ(transport: BlueZValueTransport) async throws {
        try await withPeripheral(["swipe-after=1", "card-inserted", "battery=15"]) { _ in
        let link = try await connector(transport).connect()
        let bluez = try #require(link as? BlueZReaderLink)
        #expect(bluez.transport == BlueZReaderLink.Transport(notifications: transport.gatt, writes: .request))
        await link.close()

        let reader = cardReader(connector(transport))
        let events = await reader.events()
        try await reader.connect()
        let info = try await reader.info()
        #expect(info.model == "VPOS3356")
        #expect(info.batteryPercent == 15)
        _ = try await nextEvent(events, within: .seconds(5), "battery low") { $0 == .batteryLow(percent: 15) }

        let stripe = try await reader.readMagneticStripe(timeout: .seconds(10))
        #expect(!stripe.isEmpty)
        _ = try await reader.powerOnCard()
        let card = try await reader.readEMVCard()
        #expect(!card.applicationIdentifier.isEmpty)

        // Disconnect and reconnect.
        await reader.disconnect()
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")
        await reader.disconnect()
        }
    }

    /// Line damage over bluetoothd: the 1st answer behind an MCU restart mid-frame (frames 1
    /// and 2: the cut start, then the answer), the 2nd behind a false STX in noise (frame 3),
    /// the 3rd behind a false STX split across notifications (frame 4).
    /// Each GET INFO gets its answer within its own deadline (0.5 s + 1 s), and a swipe after
    /// them works.
    @Test func answersBehindLineDamageArriveAndTheSessionGoesOn() async throws {
        try await withPeripheral(["restart-mid-frame=1", "false-stx=3", "false-stx-split=4"]) { _ in
        let reader = cardReader(connector)
        try await reader.connect()
        for _ in 1...3 {
            #expect(try await reader.info().model == "VPOS3356")
        }
        #expect(try await reader.readMagneticStripe(timeout: .seconds(10)).track2.track != nil)
        await reader.disconnect()
        }
    }

    @Test func theReaderVanishingMidCommandEndsTheCommandWithALinkError() async throws {
        try await withPeripheral(["no-swipe"]) { peripheral in
        let (writes, writesContinuation) = AsyncStream.makeStream(of: Int.self)
        let reader = cardReader(ObservedConnector(base: connector, writes: writesContinuation))
        try await reader.connect()
        let swipe = Task { try await reader.readMagneticStripe(timeout: .seconds(30)) }
        _ = try await within(.seconds(5), "the swipe command being written") {
            for await _ in writes { return true }
            return false
        }
        let start = ContinuousClock.now
        await peripheral.stop()
        let error = try await within(.seconds(15), "the swipe failing") { () -> CardReaderError? in
            do {
                _ = try await swipe.value
                return nil
            } catch let error as CardReaderError {
                return error
            }
        }
        guard let error, error.code == .linkLost, let reason = error.link else {
            Issue.record("expected linkLost, got \(String(describing: error))")
            await reader.disconnect()
            return
        }
        #expect(["remote-disconnected", "device-removed", "gatt-services-removed"].contains(reason.code.rawValue))
        #expect(ContinuousClock.now - start < .seconds(15))
        let states = await reader.stateUpdates()
        _ = try await within(.seconds(5), "the reader state becoming lost") {
            for await state in states {
                if case .lost = state { return true }
            }
            return false
        }
        }
    }

    /// SIGTERM: bluetoothd powers its adapters down, which drops their links, before it
    /// exits: the drop is this host's Bluetooth (`adapter-powered-off`, or
    /// `bluetoothd-restarted` when the owner change is seen first), never the reader's
    /// `remote-disconnected`. SIGKILL: only `org.bluez` changing owner tells
    /// (`bluetoothd-restarted`). Either way the link error says host Bluetooth.
    @Test(arguments: [false, true])
    func aBluetoothdRestartEndsTheLinkAndAFreshConnectWorks(kill: Bool) async throws {
        try await withPeripheral([], legacy: true) { _ in
        let reader = legacyReader()
        let events = await reader.events()
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")

        #expect(try await run(["bluez-vm-restart-bluetoothd"] + (kill ? ["--kill"] : []), within: .seconds(60)) == 0)
        let event = try await nextEvent(events, within: .seconds(15), "the link to drop") {
            if case .disconnected = $0 { return true }
            return false
        }
        guard case .disconnected(let reason?) = event else {
            Issue.record("expected a drop reason, got \(event)")
            return
        }
        #expect(kill ? reason.code.rawValue == "bluetoothd-restarted" : ["bluetoothd-restarted", "adapter-powered-off"].contains(reason.code.rawValue))
        #expect(reason.isHostBluetoothLoss)
        // Without a reconnection policy the reader stays down until connect() is called.
        await #expect(throws: CardReaderError.notConnected) { try await reader.info() }

        // The peripheral registers again with the new bluetoothd; a fresh connect works.
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")
        await reader.disconnect()
        }
    }

    /// The fault matrix's link-level rows over bluetoothd, in one session of GET INFOs; the
    /// faults are numbered by the frames and commands of that sequence (a timed-out command
    /// is followed by CANCEL, one more command and one more frame). Each row's outcome is the
    /// matrix's (Docs/reliability.md), and the last GET INFO succeeds. An answer sent twice
    /// (the whole frame, or its one notification) is followed by ICC STATUS, another code: a
    /// copy still on its way would be taken for a GET INFO's answer (frames carry no sequence
    /// number).
    @Test func linkLevelFaultsEndAsTheMatrixSays() async throws {
        let faults = [
            "drop-in-frame=1", "corrupt-frame=3", "cut-frame=5", "silent=7", "late-answer=9", "wrong-code=11",
            "duplicate-frame=12", "malformed-answer=15", "reorder-frame=15", "duplicate-in-frame=18",
        ]
        try await withPeripheral(faults) { _ in
        let reader = cardReader(connector)
        try await reader.connect()
        let timeout = CardReaderError.readerTimedOut(.getInfo, after: .milliseconds(1500))
        for row in ["dropped", "corrupted", "cut off", "silent", "late"] {
            await #expect(throws: timeout, "\(row)") { try await reader.info() }
        }
        // The answer under another code is named by the timeout.
        let answeredInstead = CardReaderError.readerTimedOut(.getInfo, after: .milliseconds(1500), answeredInstead: .iccStatus)
        await #expect(throws: answeredInstead, "another code") { try await reader.info() }
        #expect(try await reader.info().model == "VPOS3356", "answer twice")
        #expect(try await reader.cardSlotState() == .noCard, "after the answer sent twice")
        do throws(CardReaderError) {
            _ = try await reader.info()
            Issue.record("a malformed answer was accepted")
        } catch {
            guard error.code == .malformedResponse, error.command == .getInfo else {
                Issue.record("malformed: expected malformedResponse, got \(error)")
                return
            }
        }
        await #expect(throws: timeout, "reordered") { try await reader.info() }
        #expect(try await reader.info().model == "VPOS3356", "the next command")
        #expect(try await reader.info().model == "VPOS3356", "notification duplicated")
        #expect(try await reader.cardSlotState() == .noCard, "after the duplicated notification")
        await reader.disconnect()
        }
    }

    /// The reader drops the link halfway through its answer. BlueZ reports a disconnection
    /// 2–3 s after it happens here, after GET INFO's 1.5 s deadline: the command times out or
    /// sees the loss, whichever comes first, and the state becomes `lost`.
    @Test func theLinkLostMidFrameEndsTheCommandAndAFreshConnectWorks() async throws {
        try await withPeripheral(["drop-mid-frame=1"]) { _ in
        let reader = cardReader(connector)
        let states = await reader.stateUpdates()
        try await reader.connect()
        do throws(CardReaderError) {
            _ = try await reader.info()
            Issue.record("an answer cut by a drop was accepted")
        } catch {
            let expected = error.code == .linkLost || (error.code == .readerTimedOut && error.command == .getInfo)
            if !expected { Issue.record("expected linkLost or a timeout, got \(error)") }
        }
        _ = try await within(.seconds(15), "the reader state becoming lost") {
            for await state in states {
                if case .lost = state { return true }
            }
            return false
        }
        // bluetoothd 5.66 can itself crash as a reader drops its link mid-exchange (seen here:
        // a segfault as its ATT bearer closed with a read of its battery plugin's pending);
        // the connect rides that out, waiting for the bluetoothd D-Bus activation starts.
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")
        await reader.disconnect()
        }
    }

    static let reconnect = ReconnectPolicy(
        maximumAttempts: 10, initialDelay: .seconds(1), maximumDelay: .seconds(4), overallDeadline: .seconds(120))

    /// The reader goes away (its peripheral stops) and comes back: the policy reconnects,
    /// and the next command works.
    @Test func aReconnectPolicyBringsTheLinkBackWhenTheReaderReturns() async throws {
        try await forgetDevices()
        let first = try await startPeripheral([])
        try await pairWithReader()
        let reader = CardReader(
            connector: connector, configuration: CardReader.Configuration(connectTimeout: .seconds(30), reconnect: Self.reconnect))
        let events = await reader.events()
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")
        await first.stop()
        _ = try await nextEvent(events, within: .seconds(20), "the reconnection to start") {
            if case .reconnecting = $0 { return true }
            return false
        }
        let second = try await startPeripheral([])
        _ = try await nextEvent(events, within: .seconds(90), "the reconnection") { $0 == .reconnected }
        #expect(await reader.state == .connected)
        #expect(try await reader.info().model == "VPOS3356")
        await reader.disconnect()
        await second.stop()
    }

    /// bluetoothd is killed and restarts; the peripheral registers again; the policy
    /// reconnects, and the next command works.
    @Test func aReconnectPolicyRidesOutABluetoothdRestart() async throws {
        try await withPeripheral([], legacy: true) { _ in
        let reader = legacyReader(reconnect: Self.reconnect)
        let events = await reader.events()
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")
        #expect(try await run(["bluez-vm-restart-bluetoothd", "--kill"], within: .seconds(60)) == 0)
        _ = try await nextEvent(events, within: .seconds(20), "the reconnection to start") {
            if case .reconnecting = $0 { return true }
            return false
        }
        _ = try await nextEvent(events, within: .seconds(90), "the reconnection") { $0 == .reconnected }
        #expect(try await reader.info().model == "VPOS3356")
        await reader.disconnect()
        }
    }

    @Test func namedAdapterErrors() async throws {
        let session = try await BluetoothSession.open()
        // Every controller the guest was booted with (bluez-vm run --controllers), in order.
        let count = Int(ProcessInfo.processInfo.environment["BLUEZ_VM_CONTROLLERS"] ?? "") ?? 2
        let available = (0..<count).map { "hci\($0)" }
        await #expect(throws: BluetoothError.noSuchAdapter("hci9", available: available)) {
            try await session.adapter(named: "hci9")
        }
        await session.close()
    }

    /// The adapters are removed and added again (btvirt restarts, as unplugging them would):
    /// the link ends when the device goes with its adapter (or as its adapter leaves its
    /// powered state); once they are back, a fresh connect to a peripheral served anew works.
    @Test func adaptersRemovedAndAddedAgainEndTheLinkAndAFreshConnectWorks() async throws {
        try await breakAndRecover(
            with: ["bluez-vm-btvirt", "restart"],
            reasons: ["device-removed", "remote-disconnected", "gatt-services-removed", "adapter-powered-off"])
    }

    /// The system bus dies (SIGKILL) and comes back, bluetoothd with it: the link ends at
    /// once (`dbus-disconnected`, or bluetoothd's loss seen first); once the bus is back, a
    /// fresh connect to a peripheral served anew works. Last: it replaces every D-Bus client.
    @Test func theSystemBusGoingAwayEndsTheLinkAndAFreshConnectWorks() async throws {
        try await breakAndRecover(
            with: ["bluez-vm-restart-dbus"], reasons: ["dbus-disconnected", "bluetoothd-restarted", "remote-disconnected"])
    }

    /// Connects to a peripheral, runs `command` (a guest helper that breaks the stack and
    /// repairs it), expects the link to drop with one of `reasons`, then serves the reader
    /// anew and expects a fresh connect and a command to work.
    func breakAndRecover(with command: [String], reasons: [String]) async throws {
        try await forgetDevices()
        let first = try await startPeripheral([], legacy: true)
        let reader = legacyReader()
        let events = await reader.events()
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")
        #expect(try await run(command, within: .seconds(120)) == 0)
        let event = try await nextEvent(events, within: .seconds(20), "the link to drop") {
            if case .disconnected = $0 { return true }
            return false
        }
        if case .disconnected(let reason?) = event {
            #expect(reasons.contains(reason.code.rawValue), "\(reason)")
        } else {
            Issue.record("expected a drop reason, got \(event)")
        }
        await first.stop()
        let second = try await startPeripheral([], legacy: true)
        try await reader.connect()
        #expect(try await reader.info().model == "VPOS3356")
        await reader.disconnect()
        await second.stop()
    }
}
