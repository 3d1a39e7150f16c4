/// A D-Bus object path such as `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`.
///
/// Construction does not validate (so literals stay convenient); invalid paths are
/// rejected with ``DBusError/marshalling(_:)`` before anything reaches libdbus.
public struct DBusObjectPath: Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static let root = DBusObjectPath("/")

    public var description: String { rawValue }

    public static func < (lhs: DBusObjectPath, rhs: DBusObjectPath) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Whether the path follows the D-Bus syntax: `/`, or `/`-separated non-empty
    /// elements of `[A-Za-z0-9_]` with no trailing `/`.
    public var isValid: Bool {
        let bytes = Array(rawValue.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else {
                guard DBusNameValidation.isPathElementByte(byte) else { return false }
                previousWasSlash = false
            }
        }
        return true
    }

    /// The path with one more element, e.g. `/app` + `service0` → `/app/service0`.
    public func appending(_ element: String) -> DBusObjectPath {
        rawValue == "/" ? DBusObjectPath("/" + element) : DBusObjectPath(rawValue + "/" + element)
    }

    /// Whether `self` is a strict ancestor of `other` (`/a` is an ancestor of `/a/b`).
    public func isAncestor(of other: DBusObjectPath) -> Bool {
        if rawValue == "/" { return other.rawValue != "/" }
        return other.rawValue.hasPrefix(rawValue + "/")
    }

    /// `self` equals `other` or is an ancestor of it (the `path_namespace` relation).
    public func contains(_ other: DBusObjectPath) -> Bool {
        self == other || isAncestor(of: other)
    }

    /// The last element (empty for `/`).
    public var lastElement: String {
        guard let index = rawValue.lastIndex(of: "/") else { return rawValue }
        return String(rawValue[rawValue.index(after: index)...])
    }
}

/// A D-Bus type signature such as `a{sv}`.
public struct DBusSignature: Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static let empty = DBusSignature("")

    /// The signature split into single complete types, or `nil` if it is not valid.
    public var completeTypes: [DBusSignature]? {
        let bytes = Array(rawValue.utf8)
        guard bytes.count <= 255 else { return nil }
        var result: [DBusSignature] = []
        var index = 0
        while index < bytes.count {
            guard let end = DBusSignature.parseCompleteType(bytes, index, arrayDepth: 0, structDepth: 0)
            else { return nil }
            result.append(DBusSignature(String(decoding: bytes[index..<end], as: UTF8.self)))
            index = end
        }
        return result
    }

    /// Whether the signature is valid (any number of complete types).
    public var isValid: Bool { completeTypes != nil }

    /// Whether the signature is exactly one complete type.
    public var isSingleCompleteType: Bool { completeTypes?.count == 1 }

    static let basicCodes: Set<UInt8> = Set("ybnqiuxtdsogh".utf8)

    /// Returns the index just past the complete type starting at `start`, or nil.
    static func parseCompleteType(_ s: [UInt8], _ start: Int, arrayDepth: Int, structDepth: Int) -> Int? {
        guard start < s.count, arrayDepth <= 32, structDepth <= 32 else { return nil }
        let code = s[start]
        if basicCodes.contains(code) || code == UInt8(ascii: "v") { return start + 1 }
        switch code {
        case UInt8(ascii: "a"):
            let next = start + 1
            guard next < s.count else { return nil }
            if s[next] == UInt8(ascii: "{") {
                // dict entry: basic key, one complete value type, '}'
                let keyIndex = next + 1
                guard keyIndex < s.count, basicCodes.contains(s[keyIndex]) else { return nil }
                guard let valueEnd = parseCompleteType(s, keyIndex + 1, arrayDepth: arrayDepth + 1,
                                                       structDepth: structDepth + 1),
                      valueEnd < s.count, s[valueEnd] == UInt8(ascii: "}")
                else { return nil }
                return valueEnd + 1
            }
            return parseCompleteType(s, next, arrayDepth: arrayDepth + 1, structDepth: structDepth)
        case UInt8(ascii: "("):
            var index = start + 1
            var fields = 0
            while index < s.count, s[index] != UInt8(ascii: ")") {
                guard let end = parseCompleteType(s, index, arrayDepth: arrayDepth, structDepth: structDepth + 1)
                else { return nil }
                index = end
                fields += 1
            }
            guard index < s.count, fields > 0 else { return nil }
            return index + 1
        default:
            return nil
        }
    }
}
