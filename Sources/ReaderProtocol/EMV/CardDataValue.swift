/// The values of card-number and track tags (`5A`, `56`, `57`, `9F6B`), masked or revealed.
/// The digits go from ``SensitiveBytes`` into the PAN and track types without a plain copy.
enum CardDataValue {
    /// As a swiped track shows: the card number's first six and last four digits, and for
    /// tracks the expiry and service code. Nil when the value is not what its tag holds (then
    /// nothing of it is shown).
    static func masked(_ bytes: SensitiveBytes, reading: EMVValueReading) -> String? {
        switch reading {
        case .primaryAccountNumber:
            return primaryAccountNumber(bytes, reading: reading)?.masked
        case .track2:
            guard let characters = track2Characters(bytes), let track = try? Track2(parsing: characters) else { return nil }
            return summary(track.primaryAccountNumber, track.expiry, track.serviceCode)
        case .track1:
            guard let track = try? Track1(parsing: framed(bytes, start: UInt8(ascii: "%"))) else { return nil }
            return summary(track.primaryAccountNumber, track.expiry, track.serviceCode)
        default:
            return nil
        }
    }

    /// The card number a PAN or track value holds; nil when it holds none that parses.
    static func primaryAccountNumber(_ bytes: SensitiveBytes, reading: EMVValueReading) -> PrimaryAccountNumber? {
        switch reading {
        case .primaryAccountNumber:
            guard let digits = CompressedNumeric.digits(of: bytes, endingWith: .padding) else { return nil }
            return try? PrimaryAccountNumber(digits: digits)
        case .track2:
            return track2Characters(bytes).flatMap { try? Track2(parsing: $0) }?.primaryAccountNumber
        case .track1:
            return (try? Track1(parsing: framed(bytes, start: UInt8(ascii: "%"))))?.primaryAccountNumber
        default:
            return nil
        }
    }

    /// The value in full: the digits of a PAN, the characters of a track (`D` for track 2's
    /// separator, padding removed).
    static func revealed(_ bytes: SensitiveBytes, reading: EMVValueReading) -> String {
        switch reading {
        case .primaryAccountNumber, .track2:
            let nibbles = bytes.revealed().flatMap { [$0 >> 4, $0 & 0x0F] }
            let trimmed = nibbles.reversed().drop { $0 == 0xF }.reversed()
            return String(trimmed.map { Character(String($0, radix: 16, uppercase: true)) })
        default:
            return String(decoding: bytes.revealed(), as: UTF8.self)
        }
    }

    private static func summary(_ pan: PrimaryAccountNumber, _ expiry: ExpiryDate?, _ serviceCode: ServiceCode?) -> String {
        var parts = [pan.masked]
        if let expiry { parts.append("expiry \(expiry.yymm)") }
        if let serviceCode { parts.append("service code \(serviceCode)") }
        return parts.joined(separator: ", ")
    }

    /// Track 2 equivalent data as the characters of a track 2 (`;`, digits, `=` for `D`, `?`):
    /// `F` only as trailing padding.
    private static func track2Characters(_ bytes: SensitiveBytes) -> SensitiveBytes? {
        var characters = SensitiveBytes(capacity: 2 * bytes.count + 2)
        characters.append(UInt8(ascii: ";"))
        var ended = false
        let valid = bytes.withUnsafeBytes { raw in
            raw.allSatisfy { byte in
                [byte >> 4, byte & 0x0F].allSatisfy { nibble in
                    switch nibble {
                    case 0xF:
                        ended = true
                    case 0xD where !ended:
                        characters.append(UInt8(ascii: "="))
                    case 0...9 where !ended:
                        characters.append(0x30 + nibble)
                    default:
                        return false
                    }
                    return true
                }
            }
        }
        characters.append(UInt8(ascii: "?"))
        return valid ? characters : nil
    }

    /// The value between a start sentinel and `?`, as a reader sends a track.
    private static func framed(_ bytes: SensitiveBytes, start: UInt8) -> SensitiveBytes {
        var framed = SensitiveBytes(capacity: bytes.count + 2)
        framed.append(start)
        framed.append(contentsOf: bytes)
        framed.append(UInt8(ascii: "?"))
        return framed
    }
}
