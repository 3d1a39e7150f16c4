internal import CDBus

/// Conversion between ``DBusMessage`` values and libdbus messages.
///
/// Only the dispatch thread calls these functions (libdbus messages are not locked).
/// Values are validated in Swift (``DBusMessage/validate()``) before they get here,
/// because libdbus aborts the process on invalid input.
enum DBusMarshalling {
    // MARK: Encoding

    /// Builds a libdbus message (retained; the caller unrefs it).
    static func makeMessage(_ message: DBusMessage) throws(DBusError) -> OpaquePointer {
        try message.validate()
        guard let raw = dbus_message_new(message.kind.code) else { throw .marshalling("out of memory") }
        do {
            try setHeader(raw, message)
            var iter = DBusMessageIter()
            dbus_message_iter_init_append(raw, &iter)
            for value in message.body {
                try append(value, to: &iter)
            }
        } catch {
            dbus_message_unref(raw)
            throw error
        }
        return raw
    }

    private static func setHeader(_ raw: OpaquePointer, _ message: DBusMessage) throws(DBusError) {
        var ok = true
        if let path = message.path { ok = ok && dbus_message_set_path(raw, path.rawValue) != 0 }
        if let interface = message.interface { ok = ok && dbus_message_set_interface(raw, interface) != 0 }
        if let member = message.member { ok = ok && dbus_message_set_member(raw, member) != 0 }
        if let errorName = message.errorName { ok = ok && dbus_message_set_error_name(raw, errorName) != 0 }
        if let destination = message.destination { ok = ok && dbus_message_set_destination(raw, destination) != 0 }
        if message.replySerial != 0 { ok = ok && dbus_message_set_reply_serial(raw, message.replySerial) != 0 }
        if message.noReplyExpected || message.kind != .methodCall { dbus_message_set_no_reply(raw, 1) }
        guard ok else { throw .marshalling("out of memory while setting the message header") }
    }

    private static func appendBasic<T: BitwiseCopyable>(_ value: T, code: Int32, to iter: UnsafeMutablePointer<DBusMessageIter>)
        throws(DBusError)
    {
        var copy = value
        let ok = withUnsafeMutablePointer(to: &copy) { dbus_message_iter_append_basic(iter, code, $0) != 0 }
        guard ok else {
            throw .marshalling("cannot append a value of type \(UnicodeScalar(UInt8(code)))")
        }
    }

    private static func appendString(_ string: String, code: Int32, to iter: UnsafeMutablePointer<DBusMessageIter>)
        throws(DBusError)
    {
        let ok = string.withCString { cString -> Bool in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(iter, code, &pointer) != 0
        }
        guard ok else { throw .marshalling("cannot append string") }
    }

    private static func withContainer(
        _ iter: UnsafeMutablePointer<DBusMessageIter>, code: Int32, signature: String?,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(iter, code, $0, &sub) != 0 }
        } else {
            opened = dbus_message_iter_open_container(iter, code, nil, &sub) != 0
        }
        guard opened else { throw .marshalling("cannot open container") }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(iter, &sub) != 0 else {
            throw .marshalling("cannot close container")
        }
    }

    static func append(_ value: DBusValue, to iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) {
        switch value {
        case .byte(let v): try appendBasic(v, code: DBusTypeCode.byte, to: iter)
        case .bool(let v): try appendBasic(dbus_bool_t(v ? 1 : 0), code: DBusTypeCode.boolean, to: iter)
        case .int16(let v): try appendBasic(v, code: DBusTypeCode.int16, to: iter)
        case .uint16(let v): try appendBasic(v, code: DBusTypeCode.uint16, to: iter)
        case .int32(let v): try appendBasic(v, code: DBusTypeCode.int32, to: iter)
        case .uint32(let v): try appendBasic(v, code: DBusTypeCode.uint32, to: iter)
        case .int64(let v): try appendBasic(v, code: DBusTypeCode.int64, to: iter)
        case .uint64(let v): try appendBasic(v, code: DBusTypeCode.uint64, to: iter)
        case .double(let v): try appendBasic(v, code: DBusTypeCode.double, to: iter)
        case .string(let v): try appendString(v, code: DBusTypeCode.string, to: iter)
        case .objectPath(let v): try appendString(v.rawValue, code: DBusTypeCode.objectPath, to: iter)
        case .signature(let v): try appendString(v.rawValue, code: DBusTypeCode.signature, to: iter)
        case .unixFD(let fd):
            guard let descriptor = fd.fileDescriptor else { throw .marshalling("unix fd has been taken") }
            // libdbus duplicates the descriptor.
            try appendBasic(descriptor, code: DBusTypeCode.unixFD, to: iter)
        case .bytes(let bytes):
            try withContainer(iter, code: DBusTypeCode.array, signature: "y") { (sub) throws(DBusError) in
                guard !bytes.isEmpty else { return }
                let ok = bytes.withUnsafeBufferPointer { buffer -> Bool in
                    var base = buffer.baseAddress
                    return dbus_message_iter_append_fixed_array(sub, DBusTypeCode.byte, &base, Int32(buffer.count)) != 0
                }
                guard ok else { throw .marshalling("cannot append byte array") }
            }
        case .array(let element, let elements):
            try withContainer(iter, code: DBusTypeCode.array, signature: element.rawValue) { (sub) throws(DBusError) in
                for element in elements { try append(element, to: sub) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            let entrySignature = "{" + key.rawValue + valueSignature.rawValue + "}"
            try withContainer(iter, code: DBusTypeCode.array, signature: entrySignature) { (sub) throws(DBusError) in
                for entry in entries {
                    try withContainer(sub, code: DBusTypeCode.dictEntry, signature: nil) { (entryIter) throws(DBusError) in
                        try append(entry.key, to: entryIter)
                        try append(entry.value, to: entryIter)
                    }
                }
            }
        case .variant(let inner):
            try withContainer(iter, code: DBusTypeCode.variant, signature: inner.signature.rawValue) {
                (sub) throws(DBusError) in
                try append(inner, to: sub)
            }
        case .structure(let fields):
            try withContainer(iter, code: DBusTypeCode.structure, signature: nil) { (sub) throws(DBusError) in
                for field in fields { try append(field, to: sub) }
            }
        }
    }

    // MARK: Decoding

    /// Decodes header and body of a libdbus message.
    static func decodeMessage(_ raw: OpaquePointer) throws(DBusError) -> DBusMessage {
        var message = decodeHeader(raw)
        message.body = try decodeBody(raw)
        return message
    }

    static func decodeHeader(_ raw: OpaquePointer) -> DBusMessage {
        let kind: DBusMessage.Kind
        switch dbus_message_get_type(raw) {
        case DBusTypeCode.messageTypeMethodCall: kind = .methodCall
        case DBusTypeCode.messageTypeMethodReturn: kind = .methodReturn
        case DBusTypeCode.messageTypeError: kind = .error
        default: kind = .signal
        }
        var message = DBusMessage(kind: kind)
        message.serial = dbus_message_get_serial(raw)
        message.replySerial = dbus_message_get_reply_serial(raw)
        message.path = dbus_message_get_path(raw).map { DBusObjectPath(String(cString: $0)) }
        message.interface = dbus_message_get_interface(raw).map { String(cString: $0) }
        message.member = dbus_message_get_member(raw).map { String(cString: $0) }
        message.errorName = dbus_message_get_error_name(raw).map { String(cString: $0) }
        message.destination = dbus_message_get_destination(raw).map { String(cString: $0) }
        message.sender = dbus_message_get_sender(raw).map { String(cString: $0) }
        message.noReplyExpected = dbus_message_get_no_reply(raw) != 0
        return message
    }

    static func decodeBody(_ raw: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != DBusTypeCode.invalid {
            values.append(try readValue(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func readBasic<T: BitwiseCopyable>(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(iter, $0) }
        return value
    }

    private static func readString(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    /// The signature of the value the iterator points at.
    private static func currentSignature(_ iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> String {
        guard let cString = dbus_message_iter_get_signature(iter) else {
            throw .marshalling("out of memory reading a signature")
        }
        defer { dbus_free(cString) }
        return String(cString: cString)
    }

    static func readValue(_ iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(iter)
        switch type {
        case DBusTypeCode.byte: return .byte(readBasic(iter, UInt8(0)))
        case DBusTypeCode.boolean: return .bool(readBasic(iter, dbus_bool_t(0)) != 0)
        case DBusTypeCode.int16: return .int16(readBasic(iter, Int16(0)))
        case DBusTypeCode.uint16: return .uint16(readBasic(iter, UInt16(0)))
        case DBusTypeCode.int32: return .int32(readBasic(iter, Int32(0)))
        case DBusTypeCode.uint32: return .uint32(readBasic(iter, UInt32(0)))
        case DBusTypeCode.int64: return .int64(readBasic(iter, Int64(0)))
        case DBusTypeCode.uint64: return .uint64(readBasic(iter, UInt64(0)))
        case DBusTypeCode.double: return .double(readBasic(iter, Double(0)))
        case DBusTypeCode.string: return .string(readString(iter))
        case DBusTypeCode.objectPath: return .objectPath(DBusObjectPath(readString(iter)))
        case DBusTypeCode.signature: return .signature(DBusSignature(readString(iter)))
        case DBusTypeCode.unixFD:
            // get_basic returns a new descriptor the caller owns.
            let fd = readBasic(iter, Int32(-1))
            guard fd >= 0 else { throw .marshalling("message carries an invalid unix fd") }
            return .unixFD(DBusUnixFileDescriptor(owning: fd))
        case DBusTypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(iter, &sub)
            return .variant(try readValue(&sub))
        case DBusTypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != DBusTypeCode.invalid {
                fields.append(try readValue(&sub))
                dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case DBusTypeCode.array:
            return try readArray(iter)
        default:
            throw .marshalling("unsupported type code \(type)")
        }
    }

    private static func readArray(_ iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> DBusValue {
        let arraySignature = try currentSignature(iter)
        let elementSignature = String(arraySignature.dropFirst())
        let elementType = dbus_message_iter_get_element_type(iter)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(iter, &sub)
        if elementType == DBusTypeCode.byte {
            var base: UnsafePointer<UInt8>? = nil
            var count: Int32 = 0
            dbus_message_iter_get_fixed_array(&sub, &base, &count)
            guard let base, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: base, count: Int(count))))
        }
        if elementType == DBusTypeCode.dictEntry {
            // elementSignature is "{kv}"
            let inner = elementSignature.dropFirst().dropLast()
            guard let types = DBusSignature(String(inner)).completeTypes, types.count == 2 else {
                throw .marshalling("bad dictionary signature \(arraySignature)")
            }
            var entries: [DBusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == DBusTypeCode.dictEntry {
                var entryIter = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &entryIter)
                let key = try readValue(&entryIter)
                guard dbus_message_iter_next(&entryIter) != 0 else {
                    throw .marshalling("dictionary entry without a value")
                }
                let value = try readValue(&entryIter)
                entries.append(DBusDictionaryEntry(key: key, value: value))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(keySignature: types[0], valueSignature: types[1], entries: entries)
        }
        var elements: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&sub) != DBusTypeCode.invalid {
            elements.append(try readValue(&sub))
            dbus_message_iter_next(&sub)
        }
        return .array(elementSignature: DBusSignature(elementSignature), elements: elements)
    }
}
