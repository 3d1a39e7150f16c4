internal import CDBus
import FuzzSupport
@testable import BLETransport

/// D-Bus messages from the wire: libdbus unmarshals (and validates) the bytes, as it does
/// what the bus sends, then BLETransport reads the header and every argument into
/// ``DBusMessage`` and ``DBusValue`` (`DBusMarshalling.decodeMessage`, what the dispatch
/// loop does with each incoming message).
///
/// A message that reads must round-trip when BLETransport would send it: if it passes
/// ``DBusMessage/validate()`` (meant to catch whatever libdbus would abort on), libdbus must
/// build it, and reading it back gives the same header names and body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        let needed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal_bytes_needed($0.baseAddress, Int32($0.count)) }
        }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let demarshalled = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32($0.count), &error) }
        }
        guard let raw = demarshalled else { return }
        defer { dbus_message_unref(raw) }
        check(needed > 0 && Int(needed) <= bytes.count, "a message unmarshalled that needs \(needed) of \(bytes.count) bytes")

        guard let message = try? DBusMarshalling.decodeMessage(raw) else { return }
        _ = message.logDescription
        guard (try? message.validate()) != nil else { return }
        let rebuilt: OpaquePointer
        do {
            rebuilt = try DBusMarshalling.makeMessage(message)
        } catch {
            check(false, "a valid message read from the wire cannot be built again: \(error)")
            return
        }
        defer { dbus_message_unref(rebuilt) }
        guard let again = try? DBusMarshalling.decodeMessage(rebuilt) else {
            check(false, "a message built from a read one does not read back")
            return
        }
        check(again.kind == message.kind && again.replySerial == message.replySerial, "header kind or reply serial changed")
        check(
            [again.path?.rawValue, again.interface, again.member, again.errorName, again.destination]
                == [message.path?.rawValue, message.interface, message.member, message.errorName, message.destination],
            "header names changed")
        check(again.body.map(\.comparable) == message.body.map(\.comparable), "the body changed")
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("dbus_message_main")
public func mainDBusMessage(_ argc: CInt, _ argv: CArguments) -> CInt {
    do {
        try DBusLibrary.require()
    } catch {
        print("dbus-message needs libdbus: \(error)")
        return 1
    }
    return fuzzerMain(argc, argv, test: fuzzDBusMessage) { _ in seedMessages.compactMap(marshalled) }
}

/// The wire bytes of `message` as libdbus sends it, with serial 1.
private func marshalled(_ message: DBusMessage) -> [UInt8]? {
    guard let raw = try? DBusMarshalling.makeMessage(message) else { return nil }
    defer { dbus_message_unref(raw) }
    var data: UnsafeMutablePointer<CChar>?
    var length: Int32 = 0
    guard dbus_message_marshal(raw, &data, &length) != 0, let data else { return nil }
    defer { dbus_free(data) }
    var bytes = UnsafeBufferPointer(start: data, count: Int(length)).map { UInt8(bitPattern: $0) }
    // Bytes 8…11: the serial, in the message's byte order; 0 is invalid on the wire.
    guard bytes.count >= 12 else { return nil }
    bytes.replaceSubrange(8..<12, with: bytes[0] == UInt8(ascii: "l") ? [1, 0, 0, 0] : [0, 0, 0, 1])
    return bytes
}

/// Messages shaped like BlueZ's traffic, and one of every type.
private let seedMessages: [DBusMessage] = {
    let characteristic: DBusObjectPath = "/org/bluez/hci0/dev_00_11_22_33_44_55/service0010/char0012"
    let value = DBusValue.bytes([0x02, 0xC0, 0x01, 0x00, 0x01, 0x00, 0x21, 0xF3])
    func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            entries: entries.map { DBusDictionaryEntry(key: .string($0.0), value: .variant($0.1)) })
    }
    let device = properties([
        ("Address", .string("00:11:22:33:44:55")), ("Name", .string("VPOS3356")), ("RSSI", .int16(-60)),
        ("Connected", .bool(true)), ("UUIDs", .array(elementSignature: "s", elements: [.string("49535343-fe7d-4ae5-8fa9-9fafd205e455")])),
        ("ManufacturerData", .dictionary(keySignature: "q", valueSignature: "v", entries: [
            DBusDictionaryEntry(key: .uint16(0x004C), value: .variant(.bytes([1, 2, 3]))),
        ])),
    ])
    var changed = DBusMessage.signal(
        path: characteristic, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
        body: [.string("org.bluez.GattCharacteristic1"), properties([("Value", value), ("Notifying", .bool(true))]),
               .array(elementSignature: "s", elements: [])])
    changed.destination = ":1.42"
    let added = DBusMessage.signal(
        path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
        body: [.objectPath("/org/bluez/hci0/dev_00_11_22_33_44_55"),
               .dictionary(keySignature: "s", valueSignature: "a{sv}", entries: [
                   DBusDictionaryEntry(key: .string("org.bluez.Device1"), value: device)])])
    var objects = DBusMessage(kind: .methodReturn)
    objects.replySerial = 7
    objects.body = [.dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", entries: [
        DBusDictionaryEntry(key: .objectPath("/org/bluez/hci0/dev_00_11_22_33_44_55"), value: .dictionary(
            keySignature: "s", valueSignature: "a{sv}", entries: [DBusDictionaryEntry(key: .string("org.bluez.Device1"), value: device)])),
    ])]
    var failure = DBusMessage(kind: .error)
    failure.replySerial = 9
    failure.errorName = "org.bluez.Error.Failed"
    failure.body = [.string("Operation failed")]
    let write = DBusMessage.methodCall(
        destination: "org.bluez", path: characteristic, interface: "org.bluez.GattCharacteristic1", member: "WriteValue",
        body: [value, properties([("type", .string("command"))])])
    let everything = DBusMessage.methodCall(
        destination: nil, path: "/a/b", interface: "x.y", member: "All",
        body: [.byte(1), .bool(false), .int16(-2), .uint16(3), .int32(-4), .uint32(5), .int64(-6), .uint64(7),
               .double(0.5), .string("s"), .objectPath("/o"), .signature("a{sv}(iay)"),
               .structure([.int32(1), .variant(.variant(.structure([.string("nested"), .bytes([])])))]),
               .array(elementSignature: "(ib)", elements: [.structure([.int32(2), .bool(true)])])])
    return [changed, added, objects, failure, write, everything]
}()

extension DBusValue {
    /// The value with doubles as their bit patterns, so that a NaN equals itself.
    fileprivate var comparable: DBusValue {
        switch self {
        case .double(let value): .uint64(value.bitPattern)
        case .array(let signature, let elements): .array(elementSignature: signature, elements: elements.map(\.comparable))
        case .dictionary(let key, let value, let entries):
            .dictionary(
                keySignature: key, valueSignature: value,
                entries: entries.map { DBusDictionaryEntry(key: $0.key.comparable, value: $0.value.comparable) })
        case .variant(let inner): .variant(inner.comparable)
        case .structure(let fields): .structure(fields.map(\.comparable))
        default: self
        }
    }
}
