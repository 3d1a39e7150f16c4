import BLETransport
import Synchronization

/// A stand-in for bluetoothd on a private bus: owns `org.bluez` and serves an object
/// manager at `/`, with whatever adapters, devices and attributes a test exports.
final class FakeBlueZ: Sendable {
    let connection: DBusConnection
    /// Calls the fake received, as `Interface.Member path`.
    let calls = Mutex<[String]>([])

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    static func start(on bus: TestBus) async throws -> FakeBlueZ {
        let connection = try await DBusConnection.connect(address: bus.address)
        _ = try await connection.requestName("org.bluez")
        try connection.addObjectManager(at: "/")
        return FakeBlueZ(connection: connection)
    }

    func record(_ call: DBusMethodCall) {
        calls.withLock { $0.append("\(call.interface ?? "").\(call.member) \(call.path.rawValue)") }
    }

    func recorded(_ member: String) -> [String] {
        calls.withLock { $0.filter { $0.contains(".\(member) ") } }
    }

    func addAdapter(_ name: String, powered: Bool, interfaces: [DBusInterface] = []) throws {
        try connection.export(DBusObjectPath("/org/bluez/\(name)"), interfaces: [
            DBusInterface("org.bluez.Adapter1", properties: [
                DBusProperty("Address", value: .string("00:AA:01:00:00:0\(name.suffix(1))")),
                DBusProperty("Powered", value: .bool(powered)),
            ])
        ] + interfaces)
    }
}
