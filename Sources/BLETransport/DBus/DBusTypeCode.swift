/// D-Bus type codes: the characters of the specification's type signatures, which
/// libdbus's API takes and returns as `int`, and its message type numbers.
enum DBusTypeCode {
    static let invalid: Int32 = 0
    static let byte = Int32(UInt8(ascii: "y"))
    static let boolean = Int32(UInt8(ascii: "b"))
    static let int16 = Int32(UInt8(ascii: "n"))
    static let uint16 = Int32(UInt8(ascii: "q"))
    static let int32 = Int32(UInt8(ascii: "i"))
    static let uint32 = Int32(UInt8(ascii: "u"))
    static let int64 = Int32(UInt8(ascii: "x"))
    static let uint64 = Int32(UInt8(ascii: "t"))
    static let double = Int32(UInt8(ascii: "d"))
    static let string = Int32(UInt8(ascii: "s"))
    static let objectPath = Int32(UInt8(ascii: "o"))
    static let signature = Int32(UInt8(ascii: "g"))
    static let unixFD = Int32(UInt8(ascii: "h"))
    static let array = Int32(UInt8(ascii: "a"))
    static let variant = Int32(UInt8(ascii: "v"))
    /// The code `dbus_message_iter_get_arg_type` reports for a struct.
    static let structure = Int32(UInt8(ascii: "r"))
    /// The code `dbus_message_iter_get_arg_type` reports for a dict entry.
    static let dictEntry = Int32(UInt8(ascii: "e"))

    static let messageTypeMethodCall: Int32 = 1
    static let messageTypeMethodReturn: Int32 = 2
    static let messageTypeError: Int32 = 3
    static let messageTypeSignal: Int32 = 4
}
