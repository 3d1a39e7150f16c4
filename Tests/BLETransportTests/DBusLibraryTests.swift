@testable import BLETransport
import BlueZTestSupport
import CDBus
import Testing

/// libdbus opened at run time: the two structs whose layout is libdbus's ABI, checked
/// against the documented field lists and against the real library writing into them,
/// and the loader's failures.
@Suite("libdbus loaded at run time")
struct DBusLibraryTests {
    private static let pointer = MemoryLayout<UnsafeRawPointer>.size

    /// Sizes from libdbus's documented fields (dbus-errors.h, dbus-message.h), computed by
    /// hand for LP64 and ILP32: DBusError is two `const char *`, five one-bit fields in one
    /// `unsigned int` (padded to a pointer), one `void *`; DBusMessageIter is two pointers,
    /// a `dbus_uint32_t`, nine `int`s and two pointers — libdbus's own static assertion,
    /// 4 × pointer + 4 + 9 × 4.
    @Test func structLayoutsMatchLibdbusABI() {
        #expect(MemoryLayout<CDBus.DBusError>.size == (Self.pointer == 8 ? 32 : 16))
        #expect(MemoryLayout<CDBus.DBusError>.alignment == MemoryLayout<UnsafeRawPointer>.alignment)
        #expect(MemoryLayout<CDBus.DBusError>.offset(of: \.name) == 0)
        #expect(MemoryLayout<CDBus.DBusError>.offset(of: \.message) == Self.pointer)
        #expect(MemoryLayout<DBusMessageIter>.size == (Self.pointer == 8 ? 72 : 56))
        #expect(MemoryLayout<DBusMessageIter>.alignment == MemoryLayout<UnsafeRawPointer>.alignment)
    }

    /// libdbus fills a DBusError placed at the start of a guarded buffer: the name lands
    /// where the declaration says, and nothing past the declared size is written.
    @Test(.needsDBus) func libdbusWritesDBusErrorWithinItsDeclaredSize() throws {
        try DBusLibrary.require()
        try withGuardedBuffer(of: CDBus.DBusError.self) { error in
            dbus_error_init(error)
            // Not a D-Bus address (the specification requires a "transport:" prefix).
            let connection = dbus_connection_open_private("no-colon-here", error)
            #expect(connection == nil)
            let name = error.pointee.name.map { String(cString: $0) }
            #expect(name == "org.freedesktop.DBus.Error.BadAddress")
            #expect(error.pointee.message != nil)
            dbus_error_free(error)
            #expect(error.pointee.name == nil)
        }
    }

    /// An append iterator and a container's sub-iterator, each in a guarded buffer, write a
    /// message that a read iterator (also guarded) reads back intact.
    @Test(.needsDBus) func libdbusUsesDBusMessageIterWithinItsDeclaredSize() throws {
        try DBusLibrary.require()
        let message = try #require(dbus_message_new(DBusTypeCode.messageTypeSignal))
        defer { dbus_message_unref(message) }
        let value: [UInt8] = [0x02, 0xC0, 0x01, 0x00, 0x00, 0x00, 0x54]
        try withGuardedBuffer(of: DBusMessageIter.self) { iter in
            dbus_message_iter_init_append(message, iter)
            var number: UInt32 = 0xA5A5_0001
            #expect(dbus_message_iter_append_basic(iter, DBusTypeCode.uint32, &number) != 0)
            try withGuardedBuffer(of: DBusMessageIter.self) { sub in
                #expect(dbus_message_iter_open_container(iter, DBusTypeCode.array, "y", sub) != 0)
                value.withUnsafeBufferPointer { buffer in
                    var base = buffer.baseAddress
                    #expect(dbus_message_iter_append_fixed_array(sub, DBusTypeCode.byte, &base, Int32(buffer.count)) != 0)
                }
                #expect(dbus_message_iter_close_container(iter, sub) != 0)
            }
        }
        let body = try DBusMarshalling.decodeBody(message)
        #expect(body == [.uint32(0xA5A5_0001), .bytes(value)])
        try withGuardedBuffer(of: DBusMessageIter.self) { iter in
            #expect(dbus_message_iter_init(message, iter) != 0)
            #expect(dbus_message_iter_get_arg_type(iter) == DBusTypeCode.uint32)
            #expect(dbus_message_iter_next(iter) != 0)
            #expect(dbus_message_iter_get_arg_type(iter) == DBusTypeCode.array)
        }
    }

    @Test(.needsDBus) func aLibraryThatCannotBeFoundIsATypedErrorNamingThePackage() throws {
        let result = DBusLibrary.load("libdbus-absent-for-this-test.so.3")
        guard case .failure(let error) = result else {
            Issue.record("loading a library that does not exist succeeded")
            return
        }
        #expect(error.reason == .notLoadable)
        #expect(error.library == "libdbus-absent-for-this-test.so.3")
        #expect(error.detail.contains("libdbus-absent-for-this-test.so.3"))
        #expect(error.description.contains("libdbus-absent-for-this-test.so.3"))
        #expect(error.description.contains("libdbus-1-3"))
        // The process's own libdbus is untouched: connections still work.
        try DBusLibrary.require()
    }

    @Test func aLibraryWithoutLibdbusFunctionsNamesTheFirstMissingOne() {
        // libc opens, but exports no dbus_* function; the table lists dbus_error_init first.
        let result = DBusLibrary.load("libc.so.6")
        guard case .failure(let error) = result else {
            Issue.record("libc was taken for libdbus")
            return
        }
        #expect(error.reason == .missingFunction("dbus_error_init"))
        #expect(error.description.contains("lacks dbus_error_init"))
        #expect(error.description.contains("apt-get install libdbus-1-3"))
    }

    @Test func dbusAndBlueZErrorsCarryTheLibraryError() {
        let failure = DBusLibraryError(library: "libdbus-1.so.3", source: .default, reason: .notLoadable, detail: "")
        let bluetooth = BluetoothError(DBusError.libraryUnavailable(failure), operation: "connecting")
        #expect(bluetooth == .dbusLibraryUnavailable(failure))
        #expect(bluetooth.code.rawValue == "dbus-library-unavailable")
        #expect(bluetooth.description == failure.description)
        #expect(failure.description.hasPrefix("Bluetooth needs the D-Bus library libdbus-1.so.3, which could not be loaded;"))
    }
}

/// Runs `body` with a `T` at the start of a buffer whose bytes past `MemoryLayout<T>.size`
/// hold a canary (0xA4: low bit clear, so even a one-bit field written there shows), then
/// checks the canary is intact: a library whose `T` is larger than the declaration would
/// overwrite it.
private func withGuardedBuffer<T>(of type: T.Type, _ body: (UnsafeMutablePointer<T>) throws -> Void) throws {
    let size = MemoryLayout<T>.size
    let guardBytes = 64
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size + guardBytes, alignment: MemoryLayout<T>.alignment)
    defer { buffer.deallocate() }
    buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
    (buffer + size).initializeMemory(as: UInt8.self, repeating: 0xA4, count: guardBytes)
    let typed = buffer.bindMemory(to: T.self, capacity: 1)
    try body(typed)
    let tail = UnsafeRawBufferPointer(start: buffer + size, count: guardBytes)
    #expect(tail.allSatisfy { $0 == 0xA4 }, "libdbus wrote past the declared \(size) bytes of \(T.self)")
}
