/// The field layout shared by tracks 1 and 2 (ISO/IEC 7813): PAN, separator, then after
/// the track-specific part, expiry, service code and discretionary data.
struct MagneticTrackParser {
    let track: Int
    let bytes: UnsafeRawBufferPointer
    let separator: UInt8
    let isDataCharacter: (UInt8) -> Bool

    /// Where the end sentinel sits; data fields lie before it.
    let end: Int

    /// Checks both sentinels and the length.
    init(
        track: Int, bytes: UnsafeRawBufferPointer, startSentinel: UInt8, separator: UInt8, maximumLength: Int,
        isDataCharacter: @escaping (UInt8) -> Bool
    ) throws(MagneticTrackError) {
        self.track = track
        self.bytes = bytes
        self.separator = separator
        self.isDataCharacter = isDataCharacter
        end = try Self.checkFrame(bytes, track: track, startSentinel: startSentinel, maximumLength: maximumLength)
    }

    /// Checks both sentinels and the length, and returns the offset of the end sentinel.
    static func checkFrame(
        _ bytes: UnsafeRawBufferPointer, track: Int, startSentinel: UInt8, maximumLength: Int
    ) throws(MagneticTrackError) -> Int {
        guard bytes.first == startSentinel else { throw MagneticTrackError(track: track, problem: .missingStartSentinel) }
        guard let end = bytes.firstIndex(of: UInt8(ascii: "?")) else {
            throw MagneticTrackError(track: track, problem: .missingEndSentinel)
        }
        guard end == bytes.count - 1 else {
            throw MagneticTrackError(track: track, problem: .dataAfterEndSentinel(offset: end + 1))
        }
        guard bytes.count <= maximumLength else {
            throw MagneticTrackError(track: track, problem: .tooLong(length: bytes.count, maximum: maximumLength))
        }
        return end
    }

    private func failure(_ problem: MagneticTrackError.Problem) -> MagneticTrackError {
        MagneticTrackError(track: track, problem: problem)
    }

    /// The offset of the next separator at or after `start`, before the end sentinel.
    func separatorPosition(from start: Int, after field: MagneticTrackError.Field) throws(MagneticTrackError) -> Int {
        guard let position = bytes[start..<end].firstIndex(of: separator) else {
            throw failure(.missingSeparator(after: field))
        }
        return position
    }

    /// The PAN in `range`.
    func primaryAccountNumber(_ range: Range<Int>) throws(MagneticTrackError) -> PrimaryAccountNumber {
        do {
            return try PrimaryAccountNumber(digits: SensitiveBytes(bytes[range]))
        } catch {
            switch error.storage {
            case .invalidLength(let count): throw failure(.invalidPANLength(count))
            case .nonDigit(let offset): throw failure(.nonDigitInPAN(offset: range.lowerBound + offset))
            }
        }
    }

    /// Expiry (`YYMM` or a lone separator), service code (three digits or a lone separator)
    /// and the discretionary data up to the end sentinel, from `start`.
    func trailingFields(from start: Int) throws(MagneticTrackError) -> (
        expiry: ExpiryDate?, serviceCode: ServiceCode?, discretionaryData: SensitiveBytes
    ) {
        var position = start
        let expiry = try optionalField(at: &position, width: 4, invalid: MagneticTrackError.Problem.invalidExpiry) {
            try? ExpiryDate(yymmBytes: $0)
        }
        let serviceCode = try optionalField(at: &position, width: 3, invalid: MagneticTrackError.Problem.invalidServiceCode) {
            try? ServiceCode(asciiBytes: $0)
        }
        if let illegal = bytes[position..<end].firstIndex(where: { !isDataCharacter($0) }) {
            throw failure(.illegalCharacter(offset: illegal, field: .discretionaryData))
        }
        return (expiry, serviceCode, SensitiveBytes(bytes[position..<end]))
    }

    /// The fixed-width field at `position`, or `nil` when a lone separator marks it absent;
    /// moves `position` past what it read.
    private func optionalField<Value>(
        at position: inout Int, width: Int, invalid: (_ offset: Int) -> MagneticTrackError.Problem,
        parse: (Slice<UnsafeRawBufferPointer>) -> Value?
    ) throws(MagneticTrackError) -> Value? {
        if bytes[position..<end].first == separator {
            position += 1
            return nil
        }
        guard let value = parse(bytes[position..<min(position + width, end)]) else { throw failure(invalid(position)) }
        position += width
        return value
    }
}

extension SensitiveBytes {
    /// Appends the ASCII of a track's trailing fields: expiry or `separator`, service code or
    /// `separator`, discretionary data, then the end sentinel `?`.
    mutating func appendTrackTrailer(
        expiry: ExpiryDate?, serviceCode: ServiceCode?, discretionaryData: SensitiveBytes, separator: UInt8
    ) {
        if let expiry { append(contentsOf: expiry.yymm.utf8) } else { append(separator) }
        if let serviceCode { append(contentsOf: serviceCode.description.utf8) } else { append(separator) }
        append(contentsOf: discretionaryData)
        append(UInt8(ascii: "?"))
    }
}
