/// One D-Bus value with its type.
///
/// Arrays and dictionaries carry their element signature so that empty containers
/// still have a type. Byte arrays (`ay`) have a dedicated case, ``bytes(_:)``, that is
/// marshalled with libdbus' fast fixed-array path; incoming `ay` always decodes as
/// `.bytes`.
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(DBusObjectPath)
    case signature(DBusSignature)
    case unixFD(DBusUnixFileDescriptor)
    /// `ay`.
    case bytes([UInt8])
    /// `a<elementSignature>` (for `ay`, prefer ``bytes(_:)``).
    case array(elementSignature: DBusSignature, elements: [DBusValue])
    /// `a{<key><value>}`; entries keep their order.
    case dictionary(keySignature: DBusSignature, valueSignature: DBusSignature, entries: [DBusDictionaryEntry])
    /// `v`.
    indirect case variant(DBusValue)
    /// `(...)`; at least one field.
    case structure([DBusValue])

    /// The D-Bus signature of this value (a single complete type).
    public var signature: DBusSignature {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes: "ay"
        case .array(let element, _): DBusSignature("a" + element.rawValue)
        case .dictionary(let key, let value, _): DBusSignature("a{" + key.rawValue + value.rawValue + "}")
        case .variant: "v"
        case .structure(let fields): DBusSignature("(" + fields.map(\.signature.rawValue).joined() + ")")
        }
    }

    /// The concatenated signature of a message body.
    public static func signature(of body: [DBusValue]) -> DBusSignature {
        DBusSignature(body.map(\.signature.rawValue).joined())
    }

    /// Whether the value contains a unix file descriptor anywhere.
    public var containsUnixFD: Bool {
        switch self {
        case .unixFD: true
        case .array(_, let elements), .structure(let elements): elements.contains { $0.containsUnixFD }
        case .dictionary(_, _, let entries): entries.contains { $0.key.containsUnixFD || $0.value.containsUnixFD }
        case .variant(let inner): inner.containsUnixFD
        default: false
        }
    }

    /// Checks everything libdbus would otherwise reject by aborting the process:
    /// path and signature syntax, NUL in strings, element types of containers, and
    /// nesting depth.
    public func validate() throws(DBusError) {
        try validate(depth: 0)
    }

    private func validate(depth: Int) throws(DBusError) {
        guard depth <= 64 else { throw .marshalling("value nested more than 64 levels deep") }
        switch self {
        case .string(let string):
            guard DBusNameValidation.isValidString(string) else {
                throw .marshalling("string contains a NUL character")
            }
        case .objectPath(let path):
            guard path.isValid else { throw .marshalling("invalid object path '\(path.rawValue)'") }
        case .signature(let signature):
            guard signature.isValid else { throw .marshalling("invalid signature '\(signature.rawValue)'") }
        case .unixFD(let fd):
            guard fd.isOpen else { throw .marshalling("unix fd has already been taken or closed") }
        case .array(let element, let elements):
            guard element.isSingleCompleteType else {
                throw .marshalling("array element signature '\(element.rawValue)' is not a single complete type")
            }
            for value in elements {
                guard value.signature == element else {
                    throw .marshalling("array of '\(element.rawValue)' contains a '\(value.signature.rawValue)'")
                }
                try value.validate(depth: depth + 1)
            }
        case .dictionary(let key, let valueSignature, let entries):
            guard key.isSingleCompleteType, let keyCode = key.rawValue.utf8.first,
                  key.rawValue.utf8.count == 1, DBusSignature.basicCodes.contains(keyCode)
            else { throw .marshalling("dictionary key signature '\(key.rawValue)' is not a basic type") }
            guard valueSignature.isSingleCompleteType else {
                throw .marshalling("dictionary value signature '\(valueSignature.rawValue)' is not a single complete type")
            }
            for entry in entries {
                guard entry.key.signature == key, entry.value.signature == valueSignature else {
                    throw .marshalling(
                        "dictionary a{\(key.rawValue)\(valueSignature.rawValue)} contains an entry "
                            + "{\(entry.key.signature.rawValue)\(entry.value.signature.rawValue)}")
                }
                try entry.key.validate(depth: depth + 1)
                try entry.value.validate(depth: depth + 1)
            }
        case .variant(let inner):
            try inner.validate(depth: depth + 1)
        case .structure(let fields):
            guard !fields.isEmpty else { throw .marshalling("empty struct") }
            for field in fields { try field.validate(depth: depth + 1) }
        default:
            break
        }
        guard signature.isSingleCompleteType else {
            throw .marshalling("value has invalid signature '\(signature.rawValue)' (too deep or too long)")
        }
    }
}

/// One entry of a ``DBusValue/dictionary(keySignature:valueSignature:entries:)``.
public struct DBusDictionaryEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Building values

extension DBusValue {
    /// `a{sv}` from a Swift dictionary; each value is wrapped in a variant (values that
    /// already are variants are not wrapped twice). Keys are sorted for determinism.
    public static func stringVariantDictionary(_ dictionary: [String: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            entries: dictionary.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .string($0.key), value: $0.value.asVariant)
            })
    }

    /// `as`.
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", elements: strings.map { .string($0) })
    }

    /// `ao`.
    public static func objectPathArray(_ paths: [DBusObjectPath]) -> DBusValue {
        .array(elementSignature: "o", elements: paths.map { .objectPath($0) })
    }

    /// The value wrapped in a variant, unless it already is one.
    public var asVariant: DBusValue {
        if case .variant = self { return self }
        return .variant(self)
    }
}

// MARK: - Typed accessors (for decoding replies)

extension DBusValue {
    /// The value with all variant layers removed.
    public var unwrappingVariants: DBusValue {
        var current = self
        while case .variant(let inner) = current { current = inner }
        return current
    }

    // All accessors look through variants, so `properties["RSSI"]?.int16Value` works on
    // the values of an `a{sv}`.

    public var byteValue: UInt8? {
        if case .byte(let v) = unwrappingVariants { return v }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let v) = unwrappingVariants { return v }
        return nil
    }
    public var int16Value: Int16? {
        if case .int16(let v) = unwrappingVariants { return v }
        return nil
    }
    public var uint16Value: UInt16? {
        if case .uint16(let v) = unwrappingVariants { return v }
        return nil
    }
    public var int32Value: Int32? {
        if case .int32(let v) = unwrappingVariants { return v }
        return nil
    }
    public var uint32Value: UInt32? {
        if case .uint32(let v) = unwrappingVariants { return v }
        return nil
    }
    public var int64Value: Int64? {
        if case .int64(let v) = unwrappingVariants { return v }
        return nil
    }
    public var uint64Value: UInt64? {
        if case .uint64(let v) = unwrappingVariants { return v }
        return nil
    }
    public var doubleValue: Double? {
        if case .double(let v) = unwrappingVariants { return v }
        return nil
    }
    /// Any integer type that fits an `Int`.
    public var intValue: Int? {
        switch unwrappingVariants {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        default: nil
        }
    }
    /// `s` (also accepts `o` and `g`, returning their text).
    public var stringValue: String? {
        switch unwrappingVariants {
        case .string(let v): v
        case .objectPath(let v): v.rawValue
        case .signature(let v): v.rawValue
        default: nil
        }
    }
    public var objectPathValue: DBusObjectPath? {
        if case .objectPath(let v) = unwrappingVariants { return v }
        return nil
    }
    public var signatureValue: DBusSignature? {
        if case .signature(let v) = unwrappingVariants { return v }
        return nil
    }
    public var unixFDValue: DBusUnixFileDescriptor? {
        if case .unixFD(let v) = unwrappingVariants { return v }
        return nil
    }
    /// `ay` (also an `.array` of bytes).
    public var bytesValue: [UInt8]? {
        switch unwrappingVariants {
        case .bytes(let v): return v
        case .array(let element, let elements) where element == "y":
            var result: [UInt8] = []
            result.reserveCapacity(elements.count)
            for element in elements {
                guard case .byte(let b) = element else { return nil }
                result.append(b)
            }
            return result
        default: return nil
        }
    }
    /// The elements of any array (`ay` gives `.byte` elements).
    public var arrayValue: [DBusValue]? {
        switch unwrappingVariants {
        case .array(_, let elements): elements
        case .bytes(let bytes): bytes.map { .byte($0) }
        case .dictionary(_, _, let entries): entries.map { .structure([$0.key, $0.value]) }
        default: nil
        }
    }
    /// `as`.
    public var stringArrayValue: [String]? {
        guard case .array(let element, let elements) = unwrappingVariants, element == "s" else { return nil }
        return elements.compactMap(\.stringValue)
    }
    /// `ao`.
    public var objectPathArrayValue: [DBusObjectPath]? {
        guard case .array(let element, let elements) = unwrappingVariants, element == "o" else { return nil }
        return elements.compactMap(\.objectPathValue)
    }
    public var structureValue: [DBusValue]? {
        if case .structure(let v) = unwrappingVariants { return v }
        return nil
    }
    public var dictionaryEntries: [DBusDictionaryEntry]? {
        if case .dictionary(_, _, let entries) = unwrappingVariants { return entries }
        return nil
    }
    /// `a{s*}` as a Swift dictionary; values keep their type but lose one variant layer
    /// (so `a{sv}` values are the inner values).
    public var stringDictionaryValue: [String: DBusValue]? {
        guard case .dictionary(let key, _, let entries) = unwrappingVariants, key == "s" else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let k) = entry.key else { return nil }
            result[k] = entry.value.strippingOneVariant
        }
        return result
    }
    /// `a{o*}` as a Swift dictionary.
    public var objectPathDictionaryValue: [DBusObjectPath: DBusValue]? {
        guard case .dictionary(let key, _, let entries) = unwrappingVariants, key == "o" else { return nil }
        var result: [DBusObjectPath: DBusValue] = [:]
        for entry in entries {
            guard case .objectPath(let k) = entry.key else { return nil }
            result[k] = entry.value.strippingOneVariant
        }
        return result
    }
    /// `a{sa{sv}}` (interfaces and their properties, as in InterfacesAdded).
    public var interfacesAndPropertiesValue: [String: [String: DBusValue]]? {
        guard let interfaces = stringDictionaryValue else { return nil }
        var result: [String: [String: DBusValue]] = [:]
        for (name, properties) in interfaces {
            guard let props = properties.stringDictionaryValue else { return nil }
            result[name] = props
        }
        return result
    }
    /// `a{oa{sa{sv}}}` (the reply of ObjectManager.GetManagedObjects).
    public var managedObjectsValue: [DBusObjectPath: [String: [String: DBusValue]]]? {
        guard let objects = objectPathDictionaryValue else { return nil }
        var result: [DBusObjectPath: [String: [String: DBusValue]]] = [:]
        for (path, interfaces) in objects {
            guard let value = interfaces.interfacesAndPropertiesValue else { return nil }
            result[path] = value
        }
        return result
    }

    private var strippingOneVariant: DBusValue {
        if case .variant(let inner) = self { return inner }
        return self
    }
}

extension DBusValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .byte(let v): "byte \(v)"
        case .bool(let v): "\(v)"
        case .int16(let v): "int16 \(v)"
        case .uint16(let v): "uint16 \(v)"
        case .int32(let v): "int32 \(v)"
        case .uint32(let v): "uint32 \(v)"
        case .int64(let v): "int64 \(v)"
        case .uint64(let v): "uint64 \(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .objectPath(let v): "path \(v.rawValue)"
        case .signature(let v): "signature \(v.rawValue)"
        case .unixFD(let v): "fd \(v.description)"
        case .bytes(let v): "bytes[\(v.count)]"
        case .array(_, let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries):
            "{" + entries.map { "\($0.key.description): \($0.value.description)" }.joined(separator: ", ") + "}"
        case .variant(let inner): "<\(inner.description)>"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        }
    }
}
