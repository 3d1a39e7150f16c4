import ArgumentParser

/// `--reader`'s value, checked at parse time: a name, a prefix of one or an address, never
/// empty (an empty prefix would pick whatever reader happens to be in range).
enum ReaderNameCheck {
    static func check(_ name: String?) throws {
        if name?.isEmpty == true { throw ValidationError("--reader takes a name or an address, e.g. VPOS3356-1A2B") }
    }

    static func check(_ names: [String]) throws {
        for name in names { try check(name) }
    }
}
