@testable import BLETransport
import BlueZTestSupport
import CardReaderKitTesting
import Foundation
import Testing

@Suite("DBusConnection lifecycle, subscriptions and ordering", .needsDBus)
struct DBusLifecycleTests {
    /// The daemon's count of match rules of a connection (Debug.Stats), or nil if the
    /// daemon was built without statistics.
    private func daemonMatchRules(of connection: DBusConnection, asking observer: DBusConnection) async -> UInt32? {
        let reply = try? await observer.call(
            destination: DBusStandard.busName, path: DBusStandard.busPath,
            interface: "org.freedesktop.DBus.Debug.Stats", member: "GetConnectionStats",
            body: [.string(connection.uniqueName)], timeout: .seconds(5))
        return reply?.first?.stringDictionaryValue?["MatchRules"]?.uint32Value
    }

    @Test func droppingAStreamRemovesTheSubscriptionAndItsMatchRule() async throws {
        try await withBus { _, client, server in
            let before = await daemonMatchRules(of: client, asking: server)
            do {
                let stream = try await client.signals(matching: DBusMatchRule(interface: "org.example.Dropped"))
                #expect(await client.subscriptionCount() == 1)
                if let before {
                    #expect(await daemonMatchRules(of: client, asking: server) == before + 1)
                }
                _ = stream
            }
            // Dropping the stream terminates it; the removal is queued before this query.
            #expect(await client.subscriptionCount() == 0)
            if let before {
                // RemoveMatch was sent before the following call, and the daemon handles a
                // connection's messages in order.
                _ = try await client.listNames()
                #expect(await daemonMatchRules(of: client, asking: server) == before)
            }

            // Ending iteration by cancelling the consuming task also unsubscribes.
            let stream = try await client.signals(matching: DBusMatchRule(interface: "org.example.Cancelled"))
            let gate = Gate()
            let consumer = Task {
                gate.open()
                for await _ in stream {}
            }
            try await gate.wait()
            consumer.cancel()
            _ = try await within(5, "consumer end") { await consumer.value }
            #expect(await client.subscriptionCount() == 0)
        }
    }

    @Test func callsToOneObjectAreHandledInArrivalOrder() async throws {
        try await withBus { _, client, server in
            let received = ReceivedNumbers()
            try server.export("/test/order", interfaces: [
                DBusInterface("org.example.Order", methods: [
                    DBusMethod("Append", in: "u") { call in
                        // A yield between receipt and recording would reorder a
                        // task-per-call design.
                        await Task.yield()
                        if let n = call.arguments.first?.uint32Value { received.append(n) }
                        return []
                    },
                    DBusMethod("Collected", out: "au") { _ in
                        [.array(elementSignature: "u", elements: received.all.map { .uint32($0) })]
                    },
                ])
            ])
            for n in 0..<200 as Range<UInt32> {
                var message = DBusMessage.methodCall(
                    destination: server.uniqueName, path: "/test/order", interface: "org.example.Order",
                    member: "Append", body: [.uint32(n)])
                message.noReplyExpected = true
                try client.send(message)
            }
            let reply = try await client.call(
                destination: server.uniqueName, path: "/test/order", interface: "org.example.Order",
                member: "Collected", timeout: .seconds(10))
            #expect(reply.first?.arrayValue?.compactMap(\.uint32Value) == Array(0..<200))
        }
    }

    @Test func remoteObjectPropertiesAndTypedPropertiesChanged() async throws {
        try await withBus { _, client, server in
            let iface = "org.example.Characteristic"
            try server.export("/app/char0", interfaces: [
                DBusInterface(iface, properties: [
                    DBusProperty("Value", value: .bytes([])),
                    DBusProperty("MTU", value: .uint16(23)),
                ])
            ])
            let remote = DBusRemoteObject(connection: client, destination: server.uniqueName, path: "/app/char0")
            let changes = try await remote.propertiesChanged(interface: iface)
            #expect(try await remote.properties(interface: iface) == ["Value": .bytes([]), "MTU": .uint16(23)])
            #expect(try await remote.property("MTU", interface: iface).uint16Value == 23)

            // Two identical notifications must both go out (GATT notifications repeat).
            try server.setProperty("Value", interface: iface, path: "/app/char0", to: .bytes([0x02, 0x10]))
            try server.setProperty("Value", interface: iface, path: "/app/char0", to: .bytes([0x02, 0x10]))
            try server.setProperties(["MTU": .uint16(247), "Value": .bytes([3])], interface: iface, path: "/app/char0")
            let received = try await within(5, "three PropertiesChanged") {
                var collected: [DBusPropertiesChanged] = []
                for await change in changes {
                    collected.append(change)
                    if collected.count == 3 { break }
                }
                return collected
            }
            #expect(received.map(\.changed) == [
                ["Value": .bytes([0x02, 0x10])], ["Value": .bytes([0x02, 0x10])],
                ["MTU": .uint16(247), "Value": .bytes([3])],
            ])
            #expect(received.allSatisfy { $0.path == "/app/char0" && $0.interface == iface && $0.invalidated.isEmpty })
        }
    }

    /// 100 calls in flight at once (the daemon's default limit of pending replies per
    /// connection is 128; beyond it the daemon answers LimitsExceeded).
    @Test func manyConcurrentCallsGetTheirOwnReplies() async throws {
        try await withBus { _, client, server in
            try server.export("/test/square", interfaces: [
                DBusInterface("org.example.Math", methods: [
                    DBusMethod("Square", in: "u", out: "t") { call in
                        let n = UInt64(call.arguments.first?.uint32Value ?? 0)
                        return [.uint64(n * n)]
                    }
                ])
            ])
            let remote = DBusRemoteObject(connection: client, destination: server.uniqueName, path: "/test/square")
            let results = try await within(20, "100 concurrent calls") {
                try await withThrowingTaskGroup(of: (UInt32, UInt64?).self) { group in
                    for n in 0..<100 as Range<UInt32> {
                        group.addTask {
                            (n, try await remote.call("org.example.Math", "Square", [.uint32(n)]).first?.uint64Value)
                        }
                    }
                    var results: [UInt32: UInt64] = [:]
                    for try await (n, square) in group { results[n] = square }
                    return results
                }
            }
            #expect(results.count == 100)
            #expect(results.allSatisfy { $0.value == UInt64($0.key) * UInt64($0.key) })
        }
    }

    @Test func wellKnownSenderRulesFollowTheNameOwner() async throws {
        try await withBus { bus, client, first in
            let second = try await DBusConnection.connect(address: bus.address, clock: ManualClock())
            #expect(try await first.requestName("org.example.A") == .primaryOwner)
            #expect(try await second.requestName("org.example.B") == .primaryOwner)
            let iface = "org.example.Ticks"
            let fromA = try await client.signals(matching: DBusMatchRule(sender: "org.example.A", interface: iface))
            let fromB = try await client.signals(matching: DBusMatchRule(sender: "org.example.B", interface: iface))

            try second.emitSignal(path: "/t", interface: iface, member: "Tick", body: [.string("B1")])
            #expect(try await next(fromB)?.body == [.string("B1")])
            try first.emitSignal(path: "/t", interface: iface, member: "Tick", body: [.string("A1")])
            // Had B1 been delivered to the A subscription, it would come first.
            #expect(try await next(fromA)?.body == [.string("A1")])

            // The name moves (as org.bluez does when bluetoothd restarts).
            #expect(try await first.releaseName("org.example.A") == 1)
            #expect(try await second.requestName("org.example.A") == .primaryOwner)
            try second.emitSignal(path: "/t", interface: iface, member: "Tick", body: [.string("A2")])
            let moved = try await next(fromA)
            #expect(moved?.body == [.string("A2")])
            #expect(moved?.sender == second.uniqueName)
            await second.close()
        }
    }

    @Test func closeFlushesWhatWasQueuedBeforeIt() async throws {
        try await withBus { bus, client, _ in
            let sender = try await DBusConnection.connect(address: bus.address, clock: ManualClock())
            let big = [UInt8](repeating: 0x5A, count: 4 << 20)  // larger than one socket write
            let stream = try await client.signals(
                matching: DBusMatchRule(sender: sender.uniqueName, interface: "org.example.Big"))
            try sender.emitSignal(path: "/big", interface: "org.example.Big", member: "Blob", body: [.bytes(big)])
            await sender.close()
            let received = try await next(stream, within: 10)
            #expect(received?.body.first?.bytesValue?.count == big.count)
        }
    }

    @Test func systemBusHonoursTheEnvironmentAddress() async throws {
        let bus = try await TestBus.start()
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
        let connection = try await DBusConnection.systemBus()
        #expect(try await connection.listNames().contains(connection.uniqueName))
        await connection.close()
        #expect(!connection.isConnected)
    }

    @Test func connectingToANonexistentAddressFails() async throws {
        let error = await expectDBusError {
            try await DBusConnection.connect(address: "unix:path=/nonexistent/crk-dbus-socket")
        }
        guard case .connectionFailed(let name, _)? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(name.hasPrefix("org.freedesktop.DBus.Error."))
    }

    @Test func droppingAConnectionWithoutCloseStopsItsThread() async throws {
        let bus = try await TestBus.start()
        var connection: DBusConnection? = try await DBusConnection.connect(address: bus.address, clock: ManualClock())
        let loop = try #require(connection?.loop)
        connection = nil
        _ = try await within(5, "dispatch thread exit") { await loop.waitForTermination() }
        #expect(loop.isTerminated)
    }
}

final class ReceivedNumbers: @unchecked Sendable {
    private let lock = NSLock()
    private var numbers: [UInt32] = []
    func append(_ n: UInt32) { lock.withLock { numbers.append(n) } }
    var all: [UInt32] { lock.withLock { numbers } }
}
