/// Syntax checks for names that go into message headers. libdbus aborts the process
/// (its "fatal check failures") on invalid input, so everything is checked in Swift first.
enum DBusNameValidation {
    static func isPathElementByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Interface and error names: at least two dot-separated elements of
    /// `[A-Za-z_][A-Za-z0-9_]*`, at most 255 bytes.
    static func isValidInterfaceName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        for element in elements {
            guard let first = element.first, !isDigit(first) else { return false }
            guard element.allSatisfy(isPathElementByte) else { return false }
        }
        return true
    }

    static func isValidErrorName(_ name: String) -> Bool { isValidInterfaceName(name) }

    /// Member names: `[A-Za-z_][A-Za-z0-9_]*`, at most 255 bytes.
    static func isValidMemberName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 255, !isDigit(first) else { return false }
        return bytes.allSatisfy(isPathElementByte)
    }

    /// Bus names: unique (`:1.42`) or well-known (`org.bluez`).
    static func isValidBusName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let unique = bytes.first == UInt8(ascii: ":")
        let body = unique ? Array(bytes.dropFirst()) : bytes
        let elements = body.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        for element in elements {
            guard let first = element.first else { return false }
            if !unique && isDigit(first) { return false }
            guard element.allSatisfy({ isPathElementByte($0) || $0 == UInt8(ascii: "-") }) else { return false }
        }
        return true
    }

    /// Strings must not contain NUL (Swift strings are always valid UTF-8 otherwise).
    static func isValidString(_ string: String) -> Bool {
        !string.utf8.contains(0)
    }
}
