import ReaderProtocol

extension EMVCard {
    /// The card an EMV read found, from the data objects of its answers. The card number and
    /// name go from the data objects' ``SensitiveBytes`` into the PAN's and the name's
    /// without a plain copy on the way, so nothing of them outlives the read unwiped.
    init(
        applicationIdentifier: [UInt8], fileControlInformation: [BERTLV], processingOptions: [BERTLV],
        records: [BERTLV]
    ) throws(CardReaderError) {
        let all = fileControlInformation + processingOptions + records
        func value(_ tag: EMVTag) -> SensitiveBytes? { all.firstDescendant(withTag: tag.tag)?.value }
        let track2 = value(.track2EquivalentData)
        // 5A is compressed numeric (padded with F); without it, 57 holds the PAN up to its D
        // separator.
        let digits =
            if let applicationPAN = value(.applicationPAN) {
                CompressedNumeric.digits(of: applicationPAN, endingWith: .padding)
            } else {
                track2.flatMap { CompressedNumeric.digits(of: $0, endingWith: .fieldSeparator) }
            }
        guard let digits, let pan = try? PrimaryAccountNumber(digits: digits) else {
            throw .invalidCardData("no valid card number in 5A or 57")
        }
        // 5F24 when the card has it (a malformed one is no expiry), else the one inside 57.
        let expiry =
            if let date = value(.applicationExpirationDate) {
                Self.expiry(ofYYMMDD: date)
            } else {
                track2.flatMap(Self.expiry(afterSeparatorIn:))
            }
        self.init(
            applicationIdentifier: applicationIdentifier,
            applicationLabel: value(.applicationLabel).map { String(decoding: $0.revealed(), as: UTF8.self) },
            primaryAccountNumber: pan, expiry: expiry,
            cardholderName: value(.cardholderName).flatMap { try? CardholderName(characters: Self.trimmingSpaces($0)) },
            panSequenceNumber: value(.applicationPANSequenceNumber).flatMap { $0.withUnsafeBytes { $0.first } },
            fileControlInformation: fileControlInformation, processingOptions: processingOptions, records: records)
    }

    /// 5F24, `YYMMDD` in BCD.
    private static func expiry(ofYYMMDD bytes: SensitiveBytes) -> ExpiryDate? {
        bytes.withUnsafeBytes { raw -> ExpiryDate? in
            guard raw.count == 3, let year = decimal(raw[0]), let month = decimal(raw[1]), decimal(raw[2]) != nil
            else { return nil }
            return try? ExpiryDate(year: 2000 + year, month: month)
        }
    }

    /// The `YYMM` after the D separator of track 2 equivalent data (57).
    private static func expiry(afterSeparatorIn track2: SensitiveBytes) -> ExpiryDate? {
        track2.withUnsafeBytes { raw -> ExpiryDate? in
            func nibble(_ index: Int) -> Int? {
                guard index / 2 < raw.count else { return nil }
                return Int(index % 2 == 0 ? raw[index / 2] >> 4 : raw[index / 2] & 0x0F)
            }
            var separator = 0
            while let value = nibble(separator), value != 0xD { separator += 1 }
            guard let y1 = nibble(separator + 1), let y2 = nibble(separator + 2), let m1 = nibble(separator + 3),
                let m2 = nibble(separator + 4), [y1, y2, m1, m2].allSatisfy({ $0 <= 9 })
            else { return nil }
            return try? ExpiryDate(year: 2000 + y1 * 10 + y2, month: m1 * 10 + m2)
        }
    }

    /// The value of a BCD byte, nil when a nibble is not a decimal digit.
    private static func decimal(_ byte: UInt8) -> Int? {
        byte >> 4 <= 9 && byte & 0x0F <= 9 ? Int(byte >> 4) * 10 + Int(byte & 0x0F) : nil
    }

    /// `bytes` without leading and trailing spaces (names are padded with them).
    private static func trimmingSpaces(_ bytes: SensitiveBytes) -> SensitiveBytes {
        var trimmed = SensitiveBytes(capacity: bytes.count)
        bytes.withUnsafeBytes { raw in
            guard let first = raw.firstIndex(where: { $0 != 0x20 }), let last = raw.lastIndex(where: { $0 != 0x20 })
            else { return }
            trimmed.append(contentsOf: raw[first...last])
        }
        return trimmed
    }
}
