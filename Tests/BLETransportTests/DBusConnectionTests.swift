import BLETransport
import BlueZTestSupport
import CardReaderKitTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

private let echoPath: DBusObjectPath = "/test/echo"
private let echoInterface = "org.example.Echo"

/// Every type the marshaller supports, in shapes BlueZ uses.
private let samples: [DBusValue] = [
    .byte(0), .byte(255), .bool(true), .bool(false),
    .int16(.min), .uint16(.max), .int32(-42), .uint32(.max), .int64(.min), .uint64(.max),
    .double(3.25), .double(-1e300),
    .string("héllo ✓"), .string(""),
    .objectPath("/org/bluez/hci0"), .objectPath("/"), .signature("a{sv}"), .signature(""),
    .bytes([0, 1, 0x7f, 0xff]), .bytes([]), .bytes(Array(repeating: 0xA5, count: 4096)),
    .stringArray(["a", "b"]), .array(elementSignature: "s", elements: []),
    .array(elementSignature: "ay", elements: [.bytes([1, 2]), .bytes([])]),
    .objectPathArray(["/a", "/a/b"]),
    .stringVariantDictionary(["Transport": .string("le"), "RSSI": .int16(-70), "DuplicateData": .bool(false)]),
    .dictionary(keySignature: "s", valueSignature: "v", entries: []),
    .dictionary(
        keySignature: "q", valueSignature: "v",
        entries: [DBusDictionaryEntry(key: .uint16(0x004C), value: .variant(.bytes([2, 0x15])))]),
    .dictionary(
        keySignature: "o", valueSignature: "a{sa{sv}}",
        entries: [DBusDictionaryEntry(
            key: .objectPath("/org/bluez/hci0"),
            value: .dictionary(
                keySignature: "s", valueSignature: "a{sv}",
                entries: [DBusDictionaryEntry(
                    key: .string("org.bluez.Adapter1"),
                    value: .stringVariantDictionary(["Powered": .bool(true)]))]))]),
    .variant(.int32(7)), .variant(.variant(.string("nested"))),
    .variant(.structure([.uint32(1), .stringArray(["x"])])),
    .structure([.int32(1), .string("s"), .bytes([9]), .variant(.double(0.5))]),
    .array(elementSignature: "(sv)", elements: [.structure([.string("k"), .variant(.uint64(1))])]),
]

private func exportEcho(on server: DBusConnection) throws {
    try server.export(echoPath, interfaces: [
        DBusInterface(echoInterface, methods: [
            DBusMethod("Echo", in: nil, out: nil) { call in call.arguments },
            DBusMethod("Fail", in: "", out: "") { _ in
                throw DBusError.remote(name: "org.bluez.Error.InProgress", message: "Operation already in progress")
            },
            DBusMethod("Add", in: "ii", out: "i", inArgumentNames: ["a", "b"], outArgumentNames: ["sum"]) { call in
                guard let a = call.arguments[0].int32Value, let b = call.arguments[1].int32Value else { return [] }
                return [.int32(a &+ b)]
            },
        ])
    ])
}

@Suite("DBusConnection against a private dbus-daemon", .needsDBus)
struct DBusConnectionTests {
    @Test func busDaemonMethodsAndErrorNames() async throws {
        try await withBus { _, client, _ in
            let names = try await client.listNames()
            #expect(names.contains("org.freedesktop.DBus"))
            #expect(names.contains(client.uniqueName))
            #expect(client.uniqueName.hasPrefix(":"))

            let error = await expectDBusError { try await client.nameOwner("org.example.Missing") }
            #expect(error?.name == DBusErrorName.nameHasNoOwner)
            if case .remote(_, let message)? = error { #expect(!message.isEmpty) }

            let unknownService = await expectDBusError {
                try await client.call(destination: "org.example.NotThere", path: "/", interface: "org.example.X", member: "Y")
            }
            #expect(unknownService?.name == DBusErrorName.serviceUnknown)
        }
    }

    @Test func requestNameAndNameOwnerChanged() async throws {
        try await withBus { _, client, server in
            let changes = try await client.signals(matching: .nameOwnerChanged(name: "org.example.Reader"))
            #expect(try await server.requestName("org.example.Reader") == .primaryOwner)
            #expect(try await client.nameOwner("org.example.Reader") == server.uniqueName)
            #expect(try await client.requestName("org.example.Reader", flags: [.doNotQueue]) == .exists)
            let changeMessage = try #require(try await next(changes))
            let change = try #require(DBusNameOwnerChanged(changeMessage))
            #expect(change.name == "org.example.Reader")
            #expect(change.oldOwner == nil)
            #expect(change.newOwner == server.uniqueName)
            #expect(try await server.releaseName("org.example.Reader") == 1)
        }
    }

    @Test func everyTypeRoundTripsThroughAnExportedEchoObject() async throws {
        try await withBus { _, client, server in
            try exportEcho(on: server)
            for value in samples {
                let reply = try await client.call(
                    destination: server.uniqueName, path: echoPath, interface: echoInterface, member: "Echo",
                    body: [value], timeout: .seconds(5))
                #expect(reply == [value], "round trip of \(value.signature)")
                #expect(reply.first?.signature == value.signature)
            }
            // All at once, and each wrapped in a variant.
            let all = try await client.call(
                destination: server.uniqueName, path: echoPath, interface: echoInterface, member: "Echo",
                body: samples + samples.map { .variant($0) })
            #expect(all == samples + samples.map { .variant($0) })
        }
    }

    @Test func handlerErrorsAndDispatchErrorsKeepTheirNames() async throws {
        try await withBus { _, client, server in
            try exportEcho(on: server)
            let dest = server.uniqueName
            let inProgress = await expectDBusError {
                try await client.call(destination: dest, path: echoPath, interface: echoInterface, member: "Fail")
            }
            #expect(inProgress == .remote(name: "org.bluez.Error.InProgress", message: "Operation already in progress"))

            #expect(try await client.call(
                destination: dest, path: echoPath, interface: echoInterface, member: "Add",
                body: [.int32(2), .int32(40)]) == [.int32(42)])
            let wrongArgs = await expectDBusError {
                try await client.call(destination: dest, path: echoPath, interface: echoInterface, member: "Add",
                                      body: [.string("2")])
            }
            #expect(wrongArgs?.name == DBusErrorName.invalidArgs)
            let noMethod = await expectDBusError {
                try await client.call(destination: dest, path: echoPath, interface: echoInterface, member: "Nope")
            }
            #expect(noMethod?.name == DBusErrorName.unknownMethod)
            let noObject = await expectDBusError {
                try await client.call(destination: dest, path: "/nowhere", interface: echoInterface, member: "Echo")
            }
            #expect(noObject?.name == DBusErrorName.unknownObject)

            let xml = try await client.introspect(destination: dest, path: echoPath)
            #expect(xml.contains("<interface name=\"org.example.Echo\">"))
            #expect(xml.contains("<arg name=\"sum\" type=\"i\" direction=\"out\"/>"))
            #expect(xml.contains("org.freedesktop.DBus.Properties"))
            let parent = try await client.introspect(destination: dest, path: "/test")
            #expect(parent.contains("<node name=\"echo\"/>"))
        }
    }

    @Test func invalidOutgoingValuesThrowInsteadOfAborting() async throws {
        try await withBus { _, client, server in
            try exportEcho(on: server)
            for bad: DBusValue in [.objectPath("relative"), .structure([]), .string("a\u{0}b")] {
                let error = await expectDBusError {
                    try await client.call(destination: server.uniqueName, path: echoPath, interface: echoInterface,
                                          member: "Echo", body: [bad])
                }
                guard case .marshalling? = error else {
                    Issue.record("expected a marshalling error for \(bad), got \(String(describing: error))")
                    continue
                }
            }
            let tooLong = await expectDBusError {
                try await client.call(destination: server.uniqueName, path: echoPath, interface: echoInterface,
                                      member: "Echo", body: Array(repeating: .int32(1), count: 256))
            }
            if case .marshalling? = tooLong {} else { Issue.record("expected marshalling error for 256 arguments") }
            let reserved = #expect(throws: DBusError.self) {
                try client.emitSignal(path: "/org/freedesktop/DBus/Local", interface: "org.example.X", member: "Y")
            }
            #expect(reserved?.kind == "marshalling")
            let badMember = await expectDBusError {
                try await client.call(destination: server.uniqueName, path: echoPath, interface: nil, member: "no-dash")
            }
            if case .marshalling? = badMember {} else { Issue.record("expected marshalling error") }
            // The connection still works.
            #expect(try await client.call(destination: server.uniqueName, path: echoPath, interface: echoInterface,
                                          member: "Echo", body: [.uint32(5)]) == [.uint32(5)])
        }
    }

    @Test func signalsReachMatchingSubscriptionsOnly() async throws {
        try await withBus { _, client, server in
            let iface = "org.example.Signals"
            let pings = try await client.signals(matching: DBusMatchRule(interface: iface, member: "Ping"))
            let pongs = try await client.signals(matching: DBusMatchRule(interface: iface, member: "Pong"))
            let argTwo = try await client.signals(matching: DBusMatchRule(interface: iface, arguments: [0: "two"]))
            let fromServer = try await client.signals(
                matching: DBusMatchRule(sender: server.uniqueName, interface: iface, pathNamespace: "/sig"))

            try server.emitSignal(path: "/sig/a", interface: iface, member: "Ping", body: [.string("one")])
            try server.emitSignal(path: "/sig/b", interface: iface, member: "Pong", body: [.string("two")])

            let ping = try #require(try await next(pings))
            #expect(ping.member == "Ping")
            #expect(ping.body == [.string("one")])
            #expect(ping.sender == server.uniqueName)
            #expect(ping.path == "/sig/a")
            // Signals from one sender arrive in order, so if Ping had reached the Pong
            // subscription it would come first.
            let pong = try #require(try await next(pongs))
            #expect(pong.member == "Pong")
            let second = try #require(try await next(argTwo))
            #expect(second.member == "Pong")
            let first = try #require(try await next(fromServer))
            #expect(first.member == "Ping")
        }
    }

    @Test func propertiesGetSetAndPropertiesChanged() async throws {
        try await withBus { _, client, server in
            let path: DBusObjectPath = "/test/thing"
            let iface = "org.example.Thing"
            let vetoed = "org.example.Error.Vetoed"
            try server.export(path, interfaces: [
                DBusInterface(iface, properties: [
                    DBusProperty("Level", value: .uint32(1), access: .readWrite) { value in
                        if value.uint32Value == 13 { throw DBusError.remote(name: vetoed, message: "unlucky") }
                    },
                    DBusProperty("Name", value: .string("reader")),
                ])
            ])
            let changes = try await client.signals(matching: .propertiesChanged(path: path, interface: iface))
            let dest = server.uniqueName

            try server.setProperty("Level", interface: iface, path: path, to: .uint32(7))
            let changed = try #require(try await next(changes))
            #expect(changed.body.first == .string(iface))
            #expect(changed.body[1].stringDictionaryValue == ["Level": .uint32(7)])
            #expect(changed.body[2].stringArrayValue == [])

            #expect(try await client.getProperty("Level", interface: iface, destination: dest, path: path) == .uint32(7))
            let all = try await client.getAllProperties(interface: iface, destination: dest, path: path)
            #expect(all == ["Level": .uint32(7), "Name": .string("reader")])

            try await client.setProperty("Level", interface: iface, to: .uint32(9), destination: dest, path: path)
            let remoteChange = try #require(try await next(changes))
            #expect(remoteChange.body[1].stringDictionaryValue?["Level"] == .uint32(9))
            #expect(server.propertyValue("Level", interface: iface, path: path) == .uint32(9))

            let readOnly = await expectDBusError {
                try await client.setProperty("Name", interface: iface, to: .string("x"), destination: dest, path: path)
            }
            #expect(readOnly?.name == DBusErrorName.propertyReadOnly)
            let wrongType = await expectDBusError {
                try await client.setProperty("Level", interface: iface, to: .string("x"), destination: dest, path: path)
            }
            #expect(wrongType?.name == DBusErrorName.invalidArgs)
            let veto = await expectDBusError {
                try await client.setProperty("Level", interface: iface, to: .uint32(13), destination: dest, path: path)
            }
            #expect(veto?.name == vetoed)
            #expect(server.propertyValue("Level", interface: iface, path: path) == .uint32(9))
            let unknown = await expectDBusError {
                try await client.getProperty("Nope", interface: iface, destination: dest, path: path)
            }
            #expect(unknown?.name == DBusErrorName.unknownProperty)
            let storedWrongType = #expect(throws: DBusError.self) {
                try server.setProperty("Level", interface: iface, path: path, to: .string("wrong type"))
            }
            #expect(storedWrongType?.name == DBusErrorName.invalidArgs)
        }
    }

    @Test func objectManagerGetManagedObjectsAndInterfacesAddedRemoved() async throws {
        try await withBus { _, client, server in
            let root: DBusObjectPath = "/app"
            let service = "org.example.Service"
            // Subscribe before anything is exported, so no InterfacesAdded can race the
            // AddMatch at the daemon.
            let added = try await client.signals(matching: .interfacesAdded(managerPath: root))
            let removed = try await client.signals(matching: .interfacesRemoved(managerPath: root))
            let dest = server.uniqueName
            try server.addObjectManager(at: root)
            try server.export("/app/svc0", interfaces: [
                DBusInterface(service, properties: [DBusProperty("UUID", value: .string("180d"))])
            ])
            let serviceAdded = try #require(try await next(added))
            #expect(serviceAdded.body.first == .objectPath("/app/svc0"))
            #expect(serviceAdded.body[1].interfacesAndPropertiesValue?[service]?["UUID"] == .string("180d"))

            let objects = try await client.managedObjects(destination: dest, path: root)
            #expect(Array(objects.keys) == ["/app/svc0"])
            #expect(objects["/app/svc0"]?[service]?["UUID"] == .string("180d"))

            try server.export("/app/svc0/char0", interfaces: [
                DBusInterface("org.example.Characteristic", properties: [
                    DBusProperty("Flags", value: .stringArray(["read", "notify"])),
                    DBusProperty("Service", value: .objectPath("/app/svc0")),
                ])
            ])
            let addedMessage = try #require(try await next(added))
            let addedSignal = try #require(DBusInterfacesAdded(addedMessage))
            #expect(addedSignal.managerPath == root)
            #expect(addedSignal.sender == dest)
            #expect(addedSignal.objectPath == "/app/svc0/char0")
            #expect(addedSignal.interfaces["org.example.Characteristic"]?["Flags"]?.stringArrayValue == ["read", "notify"])
            #expect(addedSignal.interfaces["org.example.Characteristic"]?["Service"] == .objectPath("/app/svc0"))
            #expect(try await client.managedObjects(destination: dest, path: root).count == 2)

            server.unexport("/app/svc0/char0")
            let removedMessage = try #require(try await next(removed))
            #expect(removedMessage.body == [.objectPath("/app/svc0/char0"), .stringArray(["org.example.Characteristic"])])
            let removedSignal = try #require(DBusInterfacesRemoved(removedMessage))
            #expect(removedSignal.interfaces == ["org.example.Characteristic"])
            #expect(DBusInterfacesAdded(removedMessage) == nil)
            #expect(Array(try await client.managedObjects(destination: dest, path: root).keys) == ["/app/svc0"])

            let xml = try await client.introspect(destination: dest, path: root)
            #expect(xml.contains("org.freedesktop.DBus.ObjectManager"))
            #expect(xml.contains("<node name=\"svc0\"/>"))
            #expect(try await client.introspect(destination: dest, path: "/").contains("<node name=\"app\"/>"))
        }
    }

    /// A call is failed with `timeout` at its deadline on the connection's clock, not a
    /// moment before, and the connection goes on.
    @Test func callToAnObjectThatNeverAnswersTimesOutAtItsDeadline() async throws {
        let clock = ManualClock()
        try await withBus(clock: clock) { _, client, server in
            let entered = Gate()
            try server.export("/test/hang", interfaces: [
                DBusInterface("org.example.Hang", methods: [
                    DBusMethod("Hang") { _ in
                        entered.open()
                        try await Task.sleep(for: .seconds(60))  // cancelled when the server closes
                        return []
                    }
                ])
            ])
            let dest = server.uniqueName
            let call = Task { () -> DBusError? in
                do throws(DBusError) {
                    _ = try await client.call(destination: dest, path: "/test/hang", interface: "org.example.Hang",
                                              member: "Hang", timeout: .milliseconds(200))
                    return nil
                } catch {
                    return error
                }
            }
            // The call is out (the server has it), its deadline timer asleep: 1 ms before
            // the deadline it still sleeps, at the deadline the call fails.
            try await entered.wait()
            clock.advance(by: .milliseconds(199))
            try await clock.waitForSleepers(dueNoSoonerThan: .milliseconds(1), dueWithin: .milliseconds(1))
            clock.advance(by: .milliseconds(1))
            let error = try await within(5, "the call after its deadline") { await call.value }
            guard case .timeout? = error else {
                Issue.record("expected timeout, got \(String(describing: error))")
                return
            }
            // The connection is still usable.
            #expect(try await client.listNames().contains(server.uniqueName))
        }
    }

    @Test func cancellingTheCallingTaskCancelsThePendingCall() async throws {
        try await withBus { _, client, server in
            let entered = Gate()
            try server.export("/test/hang", interfaces: [
                DBusInterface("org.example.Hang", methods: [
                    DBusMethod("Hang") { _ in
                        entered.open()
                        try await Task.sleep(for: .seconds(60))
                        return []
                    }
                ])
            ])
            let dest = server.uniqueName
            let task = Task {
                try await client.call(destination: dest, path: "/test/hang", interface: "org.example.Hang",
                                      member: "Hang", timeout: .seconds(30))
            }
            try await entered.wait()
            task.cancel()
            // At once: the call's own 30 s deadline is on a clock nobody advances.
            let result = try await within(5, "cancelled call") { await task.result }
            switch result {
            case .failure(let error as DBusError): #expect(error == .cancelled)
            default: Issue.record("expected DBusError.cancelled, got \(result)")
            }
            // A task cancelled before the call starts fails at once.
            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.listNames()
            }
            switch await early.result {
            case .failure(let error as DBusError): #expect(error == .cancelled)
            default: Issue.record("expected DBusError.cancelled")
            }
            #expect(try await client.listNames().contains(dest))
        }
    }

    @Test func killingTheDaemonFailsPendingCallsAndEndsSignalStreams() async throws {
        let bus = try await TestBus.start()
        let client = try await DBusConnection.connect(address: bus.address, clock: ManualClock())
        let server = try await DBusConnection.connect(address: bus.address, clock: ManualClock())
        let entered = Gate()
        try server.export("/test/hang", interfaces: [
            DBusInterface("org.example.Hang", methods: [
                DBusMethod("Hang") { _ in
                    entered.open()
                    try await Task.sleep(for: .seconds(60))
                    return []
                }
            ])
        ])
        let stream = try await client.signals(matching: DBusMatchRule(interface: "org.example.Never"))
        let dest = server.uniqueName
        let pending = Task {
            try await client.call(destination: dest, path: "/test/hang", interface: "org.example.Hang",
                                  member: "Hang", timeout: .seconds(30))
        }
        try await entered.wait()
        await bus.kill()

        let result = try await within(5, "pending call after daemon death") { await pending.result }
        switch result {
        case .failure(DBusError.disconnected): break
        default: Issue.record("expected DBusError.disconnected, got \(result)")
        }
        #expect(try await next(stream) == nil, "the signal stream must end")
        _ = try await within(5, "client close") { await client.waitUntilClosed() }
        #expect(!client.isConnected)
        let later = await expectDBusError { try await client.listNames() }
        if case .disconnected? = later {} else { Issue.record("expected disconnected, got \(String(describing: later))") }
        let afterDeath = #expect(throws: DBusError.self) {
            try client.emitSignal(path: "/x", interface: "org.example.X", member: "Y")
        }
        #expect(afterDeath?.kind == "disconnected")
        await client.close()
        await server.close()
    }

    @Test func closeEndsStreamsAndFailsLaterCalls() async throws {
        let bus = try await TestBus.start()
        let client = try await DBusConnection.connect(address: bus.address, clock: ManualClock())
        let stream = try await client.signals(matching: DBusMatchRule(interface: "org.example.Never"))
        await client.close()
        #expect(!client.isConnected)
        #expect(try await next(stream) == nil)
        let error = await expectDBusError { try await client.listNames() }
        if case .disconnected? = error {} else { Issue.record("expected disconnected, got \(String(describing: error))") }
    }

    @Test func unixFileDescriptorsPassBothWays() async throws {
        try await withBus { _, client, server in
            #expect(client.canPassUnixFDs)
            try server.export("/test/fd", interfaces: [
                DBusInterface("org.example.FD", methods: [
                    DBusMethod("Read", in: "h", out: "s") { call in
                        guard let fd = call.arguments[0].unixFDValue?.fileDescriptor else { return [] }
                        return [.string(readAll(fd))]
                    },
                    DBusMethod("Make", in: "", out: "h") { _ in
                        let (readEnd, writeEnd) = try makePipe()
                        writeString(writeEnd, "from server")
                        close(writeEnd)
                        return [.unixFD(DBusUnixFileDescriptor(owning: readEnd))]
                    },
                ])
            ])
            let (readEnd, writeEnd) = try makePipe()
            writeString(writeEnd, "hello fd")
            close(writeEnd)
            let handle = DBusUnixFileDescriptor(owning: readEnd)
            let reply = try await client.call(destination: server.uniqueName, path: "/test/fd", interface: "org.example.FD",
                                              member: "Read", body: [.unixFD(handle)])
            #expect(reply == [.string("hello fd")])
            #expect(handle.fileDescriptor == readEnd, "sending duplicates, the sender keeps its fd")

            let made = try await client.call(destination: server.uniqueName, path: "/test/fd", interface: "org.example.FD",
                                             member: "Make")
            let received = try #require(made.first?.unixFDValue?.take())
            #expect(readAll(received) == "from server")
            close(received)
        }
    }
}

private func makePipe() throws -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw TestFailure("pipe failed") }
    return (fds[0], fds[1])
}

private func writeString(_ fd: Int32, _ string: String) {
    let bytes = Array(string.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

private func readAll(_ fd: Int32) -> String {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        data += buffer[0..<count]
    }
    return String(decoding: data, as: UTF8.self)
}
