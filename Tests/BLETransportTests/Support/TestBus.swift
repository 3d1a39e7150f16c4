import BLETransport
import BlueZTestSupport
import CardReaderKitTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The next element of a stream, bounded in time; nil if the stream ended.
func next<Element: Sendable>(_ stream: AsyncStream<Element>, within seconds: Double = 5) async throws -> Element? {
    try await within(seconds, "waiting for the next \(Element.self)") {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}

/// A daemon plus two connections ("client" and "server"), torn down after `body`. Call
/// deadlines run on `clock`, which nothing advances unless a test does: no call times out
/// however slow the machine, but where a test means it to.
func withBus(
    clock: ManualClock = ManualClock(), _ body: (TestBus, DBusConnection, DBusConnection) async throws -> Void
) async throws {
    let bus = try await TestBus.start()
    let client = try await DBusConnection.connect(address: bus.address, clock: clock)
    let server = try await DBusConnection.connect(address: bus.address, clock: clock)
    do {
        try await body(bus, client, server)
    } catch {
        await client.close()
        await server.close()
        throw error
    }
    await client.close()
    await server.close()
}

/// A private bus with a fake bluetoothd (denying `denying` as the bus's policy), set up by
/// `setUp`, and a session on it whose deadlines run on `clock`, torn down after `body`.
func withFakeBlueZ(
    denying: [String] = [], clock: ManualClock = ManualClock(), _ setUp: (FakeBlueZ) throws -> Void = { _ in },
    _ body: (BluetoothSession, FakeBlueZ) async throws -> Void
) async throws {
    let bus = try await TestBus.start(denying: denying)
    let fake = try await FakeBlueZ.start(on: bus)
    let session: BluetoothSession
    do {
        try setUp(fake)
        session = try await BluetoothSession.open(busAddress: bus.address, clock: clock)
    } catch {
        await fake.connection.close()
        throw error
    }
    do {
        try await body(session, fake)
    } catch {
        await session.close()
        await fake.connection.close()
        throw error
    }
    await session.close()
    await fake.connection.close()
}

/// Expects `body` to throw a DBusError and returns it.
func expectDBusError<T>(_ body: () async throws -> T) async -> DBusError? {
    do {
        _ = try await body()
        Issue.record("expected a DBusError, got success")
        return nil
    } catch let error as DBusError {
        return error
    } catch {
        Issue.record("expected a DBusError, got \(error)")
        return nil
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests that start a private `dbus-daemon` and reach it through libdbus: on a
    /// machine without them (a bare Swift container) they are skipped, saying what to
    /// install. `.ci/run` installs both, so CI runs them.
    static var needsDBus: Self {
        .enabled(if: TestBus.isAvailable, "needs dbus-daemon and libdbus-1.so.3: apt-get install dbus")
    }
}

extension DBusError {
    /// The case, for tests that mean one kind of failure and not its wording.
    var kind: String {
        switch self {
        case .remote: "remote"
        case .timeout: "timeout"
        case .disconnected: "disconnected"
        case .cancelled: "cancelled"
        case .marshalling: "marshalling"
        case .connectionFailed: "connectionFailed"
        case .libraryUnavailable: "libraryUnavailable"
        }
    }
}
