extension UInt8 {
    /// Two upper-case hex digits, e.g. `9F`.
    var hexByte: String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(self >> 4)], digits[Int(self & 0x0F)]])
    }
}

extension Sequence<UInt8> {
    /// Upper-case hex, a space between bytes: `02 C0 01`.
    var hexString: String { map(\.hexByte).joined(separator: " ") }
}
