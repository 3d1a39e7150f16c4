import BLETransport
import BlueZTestSupport
@testable import CardReaderKit
import CardReaderKitTesting
import Locking
import Logging
import Testing

/// A connect while bluetoothd restarts or starts, against fake bluetoothds on a private
/// dbus-daemon: one fake leaving the bus as a crashed bluetoothd does, another taking
/// `org.bluez` as systemd's restart does, registering the adapter powered off and then
/// powering it on, as bluetoothd 5.66 does at start (`adapter_register`, then
/// `set_mode(MGMT_OP_SET_POWERED)` in src/adapter.c).
@Suite(.enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus"))
struct BlueZReaderConnectorRestartTests {
    static let timeout = Duration.seconds(30)
    /// How long a step may take before the test fails (a bound, not a delay): the whole
    /// suite with every core kept busy took more than 5 s to bring a connect to `Connect`.
    static let bound = 60.0

    /// A connector to `VPOS3356` on hci1 on `bus`, on a manual clock, with the kernel
    /// showing `kernelControllers`; its log lines go to `lines`.
    static func connector(
        on bus: TestBus, clock: ManualClock, kernelControllers: [String], lines: LogLines
    ) -> BlueZReaderConnector {
        var connector = BlueZReaderConnector(
            reader: "VPOS3356", adapter: "hci1", busAddress: bus.address, timeout: timeout,
            valueTransport: .dbusMessages, logger: Logger(label: "test") { _ in lines.handler }, bondStore: nil,
            clock: clock)
        connector.kernelControllers = { kernelControllers }
        return connector
    }

    /// Exports the adapter `name` on `fake`, able to discover.
    static func addAdapter(_ name: String, powered: Bool, on fake: FakeBlueZ) throws {
        try fake.addAdapter(
            name, powered: powered,
            methods: [
                fake.recordingMethod("SetDiscoveryFilter", in: "a{sv}"), fake.recordingMethod("StartDiscovery"),
                fake.recordingMethod("StopDiscovery"),
            ])
    }

    /// A bluetoothd as it comes up: the adapter powered off, the reader it knows (a bonded
    /// device is restored from storage), then the adapter powered on.
    static func restartedBluetoothd(on bus: TestBus) async throws -> (FakeBlueZ, FakeReader) {
        let fake = try await FakeBlueZ.start(on: bus)
        try Self.addAdapter("hci1", powered: false, on: fake)
        let reader = FakeReader()
        try reader.export(on: fake, abortedConnects: 0, firmwareRevision: .value(Array("2.4.1".utf8)), rssi: -50)
        try fake.connection.setProperties(["Powered": .bool(true)], interface: "org.bluez.Adapter1", path: "/org/bluez/hci1")
        return (fake, reader)
    }

    /// A connect under way on `bus` when its bluetoothd crashes: it has reached `Connect`,
    /// and the reader's services never resolve; the connect is waiting for the next
    /// bluetoothd when this returns.
    static func connectWhoseBluetoothdCrashed(
        on bus: TestBus, clock: ManualClock, lines: LogLines
    ) async throws -> Task<any ReaderLink, any Error> {
        let crashing = try await FakeBlueZ.start(on: bus)
        try addAdapter("hci1", powered: true, on: crashing)
        let before = FakeReader()
        try before.export(on: crashing, abortedConnects: 0, stalledConnects: 1, rssi: -50)
        let connector = connector(on: bus, clock: clock, kernelControllers: ["hci1"], lines: lines)
        let connect = Task { try await connector.connect() }
        try await before.connectArrived.wait(within: bound)
        await crashing.connection.close()
        try await lines.wait(for: "waiting for bluetoothd and its adapter")
        return connect
    }

    @Test func bluetoothdRestartingUnderTheConnectIsWaitedForAndTheConnectGoesOnWithTheNewOne() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let lines = LogLines()
        let connect = try await Self.connectWhoseBluetoothdCrashed(on: bus, clock: ManualClock(), lines: lines)
        let (restarted, reader) = try await Self.restartedBluetoothd(on: bus)

        let link = try await within(Self.bound, "the connect") { try await connect.value }
        #expect(restarted.recorded("Connect").count == 1, "the connect did not go on with the new bluetoothd")
        #expect(
            lines.texts.contains { $0.hasPrefix("warning bluetoothd restarted under the connect") },
            "the restart was not logged: \(lines.texts)")
        await link.close()
        try await reader.disconnected.wait(within: Self.bound)
        await restarted.connection.close()
    }

    @Test func bluetoothdNotComingBackEndsTheConnectAtItsDeadlineAsNotRunning() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let clock = ManualClock()
        let connect = try await Self.connectWhoseBluetoothdCrashed(on: bus, clock: clock, lines: LogLines())
        clock.advance(by: Self.timeout)

        let error = try await within(Self.bound, "the connect") { await #expect(throws: LinkError.self) { try await connect.value } }
        #expect(error?.code == .bluetoothdNotRunning, "\(String(describing: error))")
    }

    @Test func anAdapterTheKernelHasIsWaitedForUntilTheStartingBluetoothdRegistersIt() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let starting = try await FakeBlueZ.start(on: bus)
        let lines = LogLines()
        let connector = Self.connector(on: bus, clock: ManualClock(), kernelControllers: ["hci0", "hci1"], lines: lines)
        let connect = Task { try await connector.connect() }

        try await lines.wait(for: "the kernel has the adapter and bluetoothd does not list it yet")
        try Self.addAdapter("hci1", powered: false, on: starting)
        let reader = FakeReader()
        try reader.export(on: starting, abortedConnects: 0, firmwareRevision: .value(Array("2.4.1".utf8)), rssi: -50)
        try starting.connection.setProperties(["Powered": .bool(true)], interface: "org.bluez.Adapter1", path: "/org/bluez/hci1")

        let link = try await within(Self.bound, "the connect") { try await connect.value }
        #expect(starting.recorded("Connect").count == 1)
        await link.close()
        await starting.connection.close()
    }

    @Test func anAdapterTheKernelDoesNotHaveEitherFailsAtOnce() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let fake = try await FakeBlueZ.start(on: bus)
        try Self.addAdapter("hci0", powered: true, on: fake)
        let connector = Self.connector(on: bus, clock: ManualClock(), kernelControllers: ["hci0"], lines: LogLines())

        let error = try await within(Self.bound, "the connect") {
            await #expect(throws: LinkError.self) { try await connector.connect() }
        }
        #expect(error?.code == .noSuchAdapter)
        #expect(error?.detail == "no Bluetooth adapter named hci1 (adapters: hci0)")
        await fake.connection.close()
    }

    @Test func bluetoothdNotRunningAtTheStartFailsAtOnce() async throws {
        let bus = try await TestBus.start()
        defer { withExtendedLifetime(bus) {} }
        let connector = Self.connector(on: bus, clock: ManualClock(), kernelControllers: ["hci1"], lines: LogLines())

        let error = try await within(Self.bound, "the connect") {
            await #expect(throws: LinkError.self) { try await connector.connect() }
        }
        #expect(error?.code == .bluetoothdNotRunning)
    }
}

/// Log lines as they are written, which a test can wait for.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    private let written: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() { (written, continuation) = AsyncStream.makeStream(of: String.self) }

    /// `LEVEL MESSAGE` of every line so far.
    var texts: [String] { lines.withLock { $0 } }

    /// A handler writing here, at every level.
    var handler: Handler { Handler(lines: self) }

    /// Returns once a line whose message starts with `prefix` has been written.
    func wait(for prefix: String, within seconds: Double = BlueZReaderConnectorRestartTests.bound) async throws {
        let written = self.written
        _ = try await within(seconds, "waiting for the log line \(prefix)") {
            for await message in written where message.hasPrefix(prefix) { return true }
            return false
        }
    }

    fileprivate func write(_ level: Logger.Level, _ message: String) {
        lines.withLock { $0.append("\(level) \(message)") }
        continuation.yield(message)
    }

    struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { lines.write(event.level, "\(event.message)") }
    }
}
