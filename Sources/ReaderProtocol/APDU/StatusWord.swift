/// The status bytes SW1 SW2 that end every response APDU (ISO/IEC 7816-4 §5.1.3, EMV Book 3 Annex A).
public struct StatusWord: Sendable, Hashable {
    /// The first status byte.
    public let sw1: UInt8
    /// The second status byte.
    public let sw2: UInt8

    /// The status word of the two status bytes, e.g. `StatusWord(sw1: 0x6A, sw2: 0x82)`.
    public init(sw1: UInt8, sw2: UInt8) {
        self.sw1 = sw1
        self.sw2 = sw2
    }

    /// Splits a 16-bit value, e.g. `StatusWord(0x6A82)`.
    public init(_ value: UInt16) {
        self.init(sw1: UInt8(value >> 8), sw2: UInt8(value & 0xFF))
    }

    /// SW1 SW2 as one 16-bit value, e.g. `0x9000`.
    public var value: UInt16 { UInt16(sw1) << 8 | UInt16(sw2) }

    /// `90 00`: normal processing.
    public static let success = StatusWord(0x9000)

    /// How a caller should treat a status word.
    public enum Category: Sendable, Hashable {
        /// `9000`.
        case success
        /// `61xx`: this many more response bytes wait for GET RESPONSE (`xx` = `00` means 256).
        case moreDataAvailable(Int)
        /// `6Cxx`: resend the command with Le = this exact length (`xx` = `00` means 256).
        case wrongLength(exact: Int)
        /// `62xx` and `63xx`: processed with a warning.
        case warning
        /// `64xx` to `6Fxx` other than `6Cxx`: execution or checking error.
        case error
        /// `9xxx` other than `9000`, or an SW1 ISO/IEC 7816-4 does not define (e.g. `60`, `7x`).
        case proprietary
    }

    /// The class of this status word.
    public var category: Category {
        switch sw1 {
        case 0x90 where sw2 == 0x00: .success
        case 0x61: .moreDataAvailable(sw2 == 0 ? 256 : Int(sw2))
        case 0x6C: .wrongLength(exact: sw2 == 0 ? 256 : Int(sw2))
        case 0x62, 0x63: .warning
        case 0x64...0x6F: .error
        default: .proprietary
        }
    }

    /// For `63Cx` (verification failed, counter `x`): the remaining retries `x`.
    public var remainingRetries: Int? {
        sw1 == 0x63 && sw2 & 0xF0 == 0xC0 ? Int(sw2 & 0x0F) : nil
    }

    /// What ISO/IEC 7816-4 or EMV says the status word means, e.g. `file or application not found`.
    public var meaning: String {
        if let exact = Self.meanings[value] { return exact }
        switch category {
        case .moreDataAvailable(let count): return "\(count) more bytes available (use GET RESPONSE)"
        case .wrongLength(let exact): return "wrong Le; exact length is \(exact)"
        default: break
        }
        if let retries = remainingRetries { return "verification failed, \(retries) retries remaining" }
        return Self.familyMeanings[sw1] ?? "proprietary or unknown status"
    }

    private static let meanings: [UInt16: String] = [
        0x9000: "success",
        0x6200: "warning: no information given, non-volatile memory unchanged",
        0x6281: "warning: part of returned data may be corrupted",
        0x6282: "warning: end of file or record reached before reading Le bytes",
        0x6283: "warning: selected file or application deactivated (blocked)",
        0x6284: "warning: file control information not formatted according to ISO/IEC 7816-4",
        0x6300: "warning: verification failed, no information given",
        0x6381: "warning: file filled up by the last write",
        0x6400: "execution error: non-volatile memory unchanged",
        0x6581: "execution error: memory failure",
        0x6700: "wrong length (Lc or Le)",
        0x6881: "logical channel not supported",
        0x6882: "secure messaging not supported",
        0x6981: "command incompatible with file structure",
        0x6982: "security status not satisfied",
        0x6983: "authentication method blocked",
        0x6984: "referenced data invalidated (not usable)",
        0x6985: "conditions of use not satisfied",
        0x6986: "command not allowed (no current EF)",
        0x6A80: "incorrect parameters in the data field",
        0x6A81: "function not supported (card or application blocked)",
        0x6A82: "file or application not found",
        0x6A83: "record not found",
        0x6A84: "not enough memory space in the file",
        0x6A86: "incorrect parameters P1-P2",
        0x6A88: "referenced data (data objects) not found",
        0x6B00: "wrong parameters P1-P2",
        0x6D00: "instruction code not supported or invalid",
        0x6E00: "class not supported",
        0x6F00: "no precise diagnosis",
    ]

    private static let familyMeanings: [UInt8: String] = [
        0x62: "warning: non-volatile memory unchanged",
        0x63: "warning: non-volatile memory changed",
        0x64: "execution error: non-volatile memory unchanged",
        0x65: "execution error: non-volatile memory changed",
        0x66: "execution error: security-related issue",
        0x67: "wrong length",
        0x68: "functions in CLA not supported",
        0x69: "command not allowed",
        0x6A: "wrong parameters P1-P2",
        0x6B: "wrong parameters P1-P2",
        0x6D: "instruction code not supported or invalid",
        0x6E: "class not supported",
        0x6F: "no precise diagnosis",
    ]
}

extension StatusWord: CustomStringConvertible {
    /// E.g. `6A82 (file or application not found)`.
    public var description: String { "\(sw1.hexByte)\(sw2.hexByte) (\(meaning))" }
}
