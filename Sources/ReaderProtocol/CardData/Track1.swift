/// Magnetic stripe track 1, format code B (ISO/IEC 7813), as the reader sends it:
/// ASCII with start and end sentinels, LRC removed.
///
/// `%B` PAN `^` NAME `^` then expiry `YYMM` (or a lone `^` when absent), service code
/// (three digits, or a lone `^` when absent), discretionary data, `?`.
/// A PAN that fails the Luhn check still parses: see ``passesLuhn``.
/// Descriptions and `dump()` show the masked PAN and the service code only.
public struct Track1: Sendable, Hashable {
    /// At most 79 characters including both sentinels and the LRC (ISO/IEC 7813), so 78 without the LRC.
    public static let maximumLength = 78

    /// The primary account number.
    public let primaryAccountNumber: PrimaryAccountNumber
    /// The cardholder name, exactly as on the track.
    public let cardholderName: CardholderName
    /// The expiry month, or `nil` when the track marks it absent.
    public let expiry: ExpiryDate?
    /// The service code, or `nil` when the track marks it absent.
    public let serviceCode: ServiceCode?
    /// Everything between the service code and the end sentinel.
    public let discretionaryData: SensitiveBytes

    /// Parses the track's ASCII bytes, e.g. `%B4111111111111111^DOE/JOHN^2512101000000000000000?`.
    public init(parsing bytes: SensitiveBytes) throws(MagneticTrackError) {
        self = try bytes.withUnsafeBytes { (buffer) throws(MagneticTrackError) in try Track1(buffer) }
    }

    /// Parses the track's ASCII characters.
    public init(parsing track: some StringProtocol) throws(MagneticTrackError) {
        try self.init(parsing: SensitiveBytes(track.utf8))
    }

    /// Builds a track from its fields; fails if the discretionary data holds characters outside
    /// the track 1 set, or the whole track would be longer than ``maximumLength``.
    public init(
        primaryAccountNumber: PrimaryAccountNumber, cardholderName: CardholderName, expiry: ExpiryDate?,
        serviceCode: ServiceCode?, discretionaryData: SensitiveBytes
    ) throws(MagneticTrackError) {
        try self.init(
            parsing: Self.encode(
                primaryAccountNumber: primaryAccountNumber, cardholderName: cardholderName, expiry: expiry,
                serviceCode: serviceCode, discretionaryData: discretionaryData))
    }

    private init(_ bytes: UnsafeRawBufferPointer) throws(MagneticTrackError) {
        let parser = try MagneticTrackParser(
            track: 1, bytes: bytes, startSentinel: UInt8(ascii: "%"), separator: UInt8(ascii: "^"),
            maximumLength: Self.maximumLength, isDataCharacter: \.isTrack1DataCharacter)
        guard bytes[1] == UInt8(ascii: "B") else { throw MagneticTrackError(track: 1, problem: .unsupportedFormatCode) }
        let panEnd = try parser.separatorPosition(from: 2, after: .primaryAccountNumber)
        primaryAccountNumber = try parser.primaryAccountNumber(2..<panEnd)
        let nameEnd = try parser.separatorPosition(from: panEnd + 1, after: .cardholderName)
        do {
            cardholderName = try CardholderName(characters: SensitiveBytes(bytes[panEnd + 1..<nameEnd]))
        } catch {
            switch error.storage {
            case .invalidLength(let count):
                throw MagneticTrackError(track: 1, problem: .invalidNameLength(count))
            case .illegalCharacter(let offset):
                throw MagneticTrackError(
                    track: 1, problem: .illegalCharacter(offset: panEnd + 1 + offset, field: .cardholderName))
            }
        }
        (expiry, serviceCode, discretionaryData) = try parser.trailingFields(from: nameEnd + 1)
    }

    /// Whether the PAN passes the Luhn check.
    public var passesLuhn: Bool { primaryAccountNumber.passesLuhn }

    /// The track's ASCII bytes, sentinels included: what the reader sends.
    public func encoded() -> SensitiveBytes {
        Self.encode(
            primaryAccountNumber: primaryAccountNumber, cardholderName: cardholderName, expiry: expiry,
            serviceCode: serviceCode, discretionaryData: discretionaryData)
    }

    /// The whole track as text. Use only where the track must leave the SDK.
    public func revealed() -> String {
        encoded().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    private static func encode(
        primaryAccountNumber: PrimaryAccountNumber, cardholderName: CardholderName, expiry: ExpiryDate?,
        serviceCode: ServiceCode?, discretionaryData: SensitiveBytes
    ) -> SensitiveBytes {
        var bytes = SensitiveBytes(capacity: maximumLength)
        bytes.append(contentsOf: "%B".utf8)
        bytes.append(contentsOf: primaryAccountNumber.digits)
        bytes.append(UInt8(ascii: "^"))
        bytes.append(contentsOf: cardholderName.characters)
        bytes.append(UInt8(ascii: "^"))
        bytes.appendTrackTrailer(
            expiry: expiry, serviceCode: serviceCode, discretionaryData: discretionaryData, separator: UInt8(ascii: "^"))
        return bytes
    }
}

extension Track1: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// E.g. `track 1: PAN 411111******1111, service code 101 (name, expiry and discretionary data hidden)`.
    public var description: String {
        "track 1: PAN \(primaryAccountNumber.masked), service code \(serviceCode?.description ?? "absent")"
            + " (name, expiry and discretionary data hidden)"
    }

    /// ``description`` labelled with the type: the masked PAN and the service code only.
    public var debugDescription: String { "Track1(\(description))" }

    /// The masked PAN, the name's length, whether an expiry is present, the service code and
    /// the discretionary data's length, so that `dump` and debuggers never show card data.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "primaryAccountNumber": primaryAccountNumber,
                "cardholderName": cardholderName,
                "expiry": expiry == nil ? "absent" : "hidden",
                "serviceCode": serviceCode?.description ?? "absent",
                "discretionaryData": discretionaryData,
            ], displayStyle: .struct)
    }
}
