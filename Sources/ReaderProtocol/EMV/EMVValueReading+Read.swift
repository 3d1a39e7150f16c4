/// Reading a value that is not card data: the text a person sees, and details one per line.
extension EMVValueReading {
    struct Reading {
        var value: String
        var details: [String] = []
    }

    func read(_ bytes: [UInt8], _ context: EMVDataRenderer.Context) -> Reading {
        let hex = HexText.string(bytes)
        switch self {
        case .template, .binary, .primaryAccountNumber, .track1, .track2:
            return Reading(value: hex)
        case .text:
            return Reading(value: Self.text(bytes) ?? "\(hex) (not text)")
        case .digits:
            return Reading(value: BCD.digits(bytes) ?? hex)
        case .date:
            return Reading(value: Self.date(bytes) ?? hex)
        case .time:
            return Reading(value: Self.time(bytes) ?? hex)
        case .amount:
            guard let minorUnits = BCD.number(bytes) else { return Reading(value: hex) }
            return Reading(value: Self.amount(minorUnits, context.currencyExponent))
        case .binaryAmount:
            guard let minorUnits = Self.unsigned(bytes) else { return Reading(value: hex) }
            return Reading(value: Self.amount(minorUnits, context.currencyExponent))
        case .currency:
            return Reading(value: BCD.number(bytes).map(Self.currency) ?? hex)
        case .country:
            return Reading(value: BCD.number(bytes).map(Self.country) ?? hex)
        case .integer:
            return Reading(value: Self.unsigned(bytes).map { "\($0)" } ?? hex)
        case .applicationIdentifier:
            return Reading(value: Self.applicationIdentifier(bytes))
        case .dedicatedFileName:
            if let name = Self.text(bytes), name.contains(".") { return Reading(value: name) }
            return Reading(value: Self.applicationIdentifier(bytes))
        case .applicationFileLocator:
            return Reading(value: hex, details: Self.applicationFileLocator(bytes))
        case .responseFormat1:
            return Reading(value: hex, details: Self.responseFormat1(bytes))
        case .cvmList:
            return Reading(value: hex, details: Self.cvmList(bytes, currencyExponent: context.currencyExponent))
        case .cvmResults:
            return Reading(value: hex, details: Self.cvmResults(bytes))
        case .dataObjectList:
            return Self.dataObjectList(bytes) ?? Reading(value: hex, details: ["malformed DOL"])
        case .tagList:
            return Self.tagList(bytes) ?? Reading(value: hex, details: ["malformed tag list"])
        case .bits(let field):
            return Reading(value: hex, details: field.meanings(of: bytes))
        case .languagePreference:
            return Reading(value: Self.languages(bytes) ?? hex)
        case .cryptogramInformation:
            return Reading(value: hex, details: bytes.count == 1 ? Self.cryptogramInformation(bytes[0]) : [])
        case .transactionType:
            guard let code = BCD.digits(bytes) else { return Reading(value: hex) }
            return Reading(value: Self.transactionTypes[code].map { "\(code) (\($0))" } ?? code)
        case .terminalType:
            guard let code = BCD.digits(bytes) else { return Reading(value: hex) }
            return Reading(value: Self.terminalType(code).map { "\(code) (\($0))" } ?? code)
        case .serviceCode:
            return Reading(value: Self.serviceCode(bytes) ?? hex)
        case .priority:
            return Reading(value: bytes.count == 1 ? Self.priority(bytes[0]) : hex)
        }
    }

    /// Printable ASCII, or nil.
    static func text(_ bytes: [UInt8]) -> String? {
        bytes.allSatisfy { (0x20...0x7E).contains($0) } ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// An unsigned big-endian number of at most 7 bytes.
    static func unsigned(_ bytes: [UInt8]) -> Int? {
        guard bytes.count <= 7 else { return nil }
        return bytes.reduce(0) { $0 << 8 | Int($1) }
    }

    static func threeDigits(_ code: Int) -> String {
        let digits = String(code)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// `YYMMDD` as `20YY-MM-DD`.
    private static func date(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 3, let digits = BCD.digits(bytes) else { return nil }
        let parts = stride(from: 0, to: 6, by: 2).map { Array(digits)[$0..<$0 + 2] }.map { String($0) }
        guard let month = Int(parts[1]), (1...12).contains(month), let day = Int(parts[2]), (1...31).contains(day) else {
            return nil
        }
        return "20\(parts[0])-\(parts[1])-\(parts[2])"
    }

    /// `HHMMSS` as `HH:MM:SS`.
    private static func time(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 3, let digits = BCD.digits(bytes) else { return nil }
        let parts = stride(from: 0, to: 6, by: 2).map { String(Array(digits)[$0..<$0 + 2]) }
        return parts.joined(separator: ":")
    }

    /// Minor units with the decimal point the exponent puts, or `N (minor units)` without one.
    static func amount(_ minorUnits: Int, _ exponent: Int?) -> String {
        guard let exponent, exponent > 0 else {
            return exponent == 0 ? "\(minorUnits)" : "\(minorUnits) (minor units)"
        }
        var divisor = 1
        for _ in 0..<exponent { divisor *= 10 }
        let fraction = String(minorUnits % divisor)
        return "\(minorUnits / divisor)." + String(repeating: "0", count: exponent - fraction.count) + fraction
    }

    private static func applicationIdentifier(_ bytes: [UInt8]) -> String {
        let hex = HexText.string(bytes, separator: "")
        return PaymentApplications.name(of: bytes).map { "\(hex) (\($0))" } ?? hex
    }

    private static func applicationFileLocator(_ bytes: [UInt8]) -> [String] {
        do {
            return try ApplicationFileLocator(parsing: bytes).entries.map { entry in
                let records = entry.firstRecord == entry.lastRecord
                    ? "record \(entry.firstRecord)" : "records \(entry.firstRecord)–\(entry.lastRecord)"
                return "SFI \(entry.shortFileIdentifier), \(records), \(entry.offlineAuthenticationRecordCount) for offline data authentication"
            }
        } catch {
            return ["malformed: \(error)"]
        }
    }

    /// `80`: AIP and AFL (GET PROCESSING OPTIONS), or CID, ATC, cryptogram and issuer
    /// application data (GENERATE AC); which one, the length and the AFL's validity tell.
    private static func responseFormat1(_ bytes: [UInt8]) -> [String] {
        if bytes.count >= 6, (bytes.count - 2) % 4 == 0,
            (try? ApplicationFileLocator(parsing: Array(bytes[2...]))) != nil
        {
            let aip = Array(bytes[0..<2])
            return ["Application Interchange Profile: \(HexText.string(aip))"]
                + EMVBitField.applicationInterchangeProfile.meanings(of: aip).map { "  " + $0 }
                + ["Application File Locator: \(HexText.string(bytes[2...]))"]
                + applicationFileLocator(Array(bytes[2...])).map { "  " + $0 }
        }
        if bytes.count >= 11 {
            return ["Cryptogram Information Data: \(bytes[0].hexByte)"] + cryptogramInformation(bytes[0]).map { "  " + $0 }
                + ["Application Transaction Counter: \(unsigned(Array(bytes[1..<3])) ?? 0)",
                   "Application Cryptogram: \(HexText.string(bytes[3..<11]))"]
                + (bytes.count > 11 ? ["Issuer Application Data: \(HexText.string(bytes[11...]))"] : [])
        }
        return []
    }

    private static func cvmResults(_ bytes: [UInt8]) -> [String] {
        guard bytes.count == 3 else { return ["malformed: \(bytes.count) bytes, not 3"] }
        let rule = CardholderVerificationMethodList.Rule(bytes: bytes[0], bytes[1])
        let result = switch bytes[2] {
        case 0x00: "Unknown"
        case 0x01: "Failed"
        case 0x02: "Successful"
        default: "RFU result \(bytes[2].hexByte)"
        }
        return ["Method: \(rule.methodName)", "Condition: \(rule.conditionName)", "Result: \(result)"]
    }

    /// Book 3 Table 15.
    private static func cryptogramInformation(_ byte: UInt8) -> [String] {
        let type = switch byte >> 6 {
        case 0: "AAC (transaction declined)"
        case 1: "TC (transaction approved)"
        case 2: "ARQC (online authorisation requested)"
        default: "RFU cryptogram type"
        }
        var lines = [type]
        if byte & 0x08 != 0 { lines.append("Advice required") }
        switch byte & 0x07 {
        case 0: break
        case 1: lines.append("Service not allowed")
        case 2: lines.append("PIN Try Limit exceeded")
        case 3: lines.append("Issuer authentication failed")
        default: lines.append("RFU reason \(byte & 0x07)")
        }
        return lines
    }

    static func tags(_ bytes: [UInt8]) -> [BERTag]? {
        SensitiveBytes(bytes).withUnsafeBytes { buffer -> [BERTag]? in
            var tags: [BERTag] = []
            var position = 0
            while position < buffer.count {
                guard let (tag, next) = try? BERTag.read(buffer, at: position) else { return nil }
                tags.append(tag)
                position = next
            }
            return tags
        }
    }

    /// ISO 8583 processing codes' first two digits (EMV Book 4 §A).
    private static let transactionTypes = [
        "00": "goods and services", "01": "cash", "09": "purchase with cashback", "20": "refund",
        "30": "balance inquiry",
    ]

    /// Book 4 Table A1: operational control, then attended or not and online capability.
    private static func terminalType(_ code: String) -> String? {
        let digits = Array(code)
        guard digits.count == 2 else { return nil }
        let control = switch digits[0] {
        case "1": "financial institution"
        case "2": "merchant"
        case "3": "cardholder"
        default: Optional<String>.none
        }
        let environment = switch digits[1] {
        case "1": "attended, online only"
        case "2": "attended, offline with online capability"
        case "3": "attended, offline only"
        case "4": "unattended, online only"
        case "5": "unattended, offline with online capability"
        case "6": "unattended, offline only"
        default: Optional<String>.none
        }
        guard let control, let environment else { return nil }
        return "\(control), \(environment)"
    }
}

/// Binary-coded decimal, as EMV's `n` format stores digits.
enum BCD {
    /// The digits, or nil when a nibble is not 0–9.
    static func digits(_ bytes: [UInt8]) -> String? {
        var digits = ""
        for nibble in bytes.flatMap({ [$0 >> 4, $0 & 0x0F] }) {
            guard nibble <= 9 else { return nil }
            digits.append(Character(String(nibble)))
        }
        return digits
    }

    /// The number the digits spell (at most 18 of them), or nil.
    static func number(_ bytes: [UInt8]) -> Int? {
        guard bytes.count <= 9, let digits = digits(bytes) else { return nil }
        return digits.isEmpty ? nil : Int(digits)
    }
}
