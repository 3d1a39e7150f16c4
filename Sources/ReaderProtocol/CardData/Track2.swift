/// Magnetic stripe track 2 (ISO/IEC 7813), as the reader sends it: ASCII with start and end
/// sentinels, LRC removed.
///
/// `;` PAN `=` expiry `YYMM` (or a lone `=` when absent), service code (three digits, or a
/// lone `=` when absent), discretionary data, `?`.
/// A PAN that fails the Luhn check still parses: see ``passesLuhn``.
/// Descriptions and `dump()` show the masked PAN and the service code only.
public struct Track2: Sendable, Hashable {
    /// At most 40 characters including both sentinels and the LRC (ISO/IEC 7813), so 39 without the LRC.
    public static let maximumLength = 39

    /// The primary account number.
    public let primaryAccountNumber: PrimaryAccountNumber
    /// The expiry month, or `nil` when the track marks it absent.
    public let expiry: ExpiryDate?
    /// The service code, or `nil` when the track marks it absent.
    public let serviceCode: ServiceCode?
    /// Everything between the service code and the end sentinel.
    public let discretionaryData: SensitiveBytes

    /// Parses the track's ASCII bytes, e.g. `;4111111111111111=25121010000000000000?`.
    public init(parsing bytes: SensitiveBytes) throws(MagneticTrackError) {
        self = try bytes.withUnsafeBytes { (buffer) throws(MagneticTrackError) in try Track2(buffer) }
    }

    /// Parses the track's ASCII characters.
    public init(parsing track: some StringProtocol) throws(MagneticTrackError) {
        try self.init(parsing: SensitiveBytes(track.utf8))
    }

    /// Builds a track from its fields; fails if the discretionary data holds characters outside
    /// the track 2 set, or the whole track would be longer than ``maximumLength``.
    public init(
        primaryAccountNumber: PrimaryAccountNumber, expiry: ExpiryDate?, serviceCode: ServiceCode?,
        discretionaryData: SensitiveBytes
    ) throws(MagneticTrackError) {
        try self.init(
            parsing: Self.encode(
                primaryAccountNumber: primaryAccountNumber, expiry: expiry, serviceCode: serviceCode,
                discretionaryData: discretionaryData))
    }

    private init(_ bytes: UnsafeRawBufferPointer) throws(MagneticTrackError) {
        let parser = try MagneticTrackParser(
            track: 2, bytes: bytes, startSentinel: UInt8(ascii: ";"), separator: UInt8(ascii: "="),
            maximumLength: Self.maximumLength, isDataCharacter: \.isTrack2DataCharacter)
        let panEnd = try parser.separatorPosition(from: 1, after: .primaryAccountNumber)
        primaryAccountNumber = try parser.primaryAccountNumber(1..<panEnd)
        (expiry, serviceCode, discretionaryData) = try parser.trailingFields(from: panEnd + 1)
    }

    /// Whether the PAN passes the Luhn check.
    public var passesLuhn: Bool { primaryAccountNumber.passesLuhn }

    /// The track's ASCII bytes, sentinels included: what the reader sends.
    public func encoded() -> SensitiveBytes {
        Self.encode(
            primaryAccountNumber: primaryAccountNumber, expiry: expiry, serviceCode: serviceCode,
            discretionaryData: discretionaryData)
    }

    /// The whole track as text. Use only where the track must leave the SDK.
    public func revealed() -> String {
        encoded().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    private static func encode(
        primaryAccountNumber: PrimaryAccountNumber, expiry: ExpiryDate?, serviceCode: ServiceCode?,
        discretionaryData: SensitiveBytes
    ) -> SensitiveBytes {
        var bytes = SensitiveBytes(capacity: maximumLength)
        bytes.append(UInt8(ascii: ";"))
        bytes.append(contentsOf: primaryAccountNumber.digits)
        bytes.append(UInt8(ascii: "="))
        bytes.appendTrackTrailer(
            expiry: expiry, serviceCode: serviceCode, discretionaryData: discretionaryData, separator: UInt8(ascii: "="))
        return bytes
    }
}

extension Track2: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// E.g. `track 2: PAN 411111******1111, service code 101 (expiry and discretionary data hidden)`.
    public var description: String {
        "track 2: PAN \(primaryAccountNumber.masked), service code \(serviceCode?.description ?? "absent")"
            + " (expiry and discretionary data hidden)"
    }

    /// ``description`` labelled with the type: the masked PAN and the service code only.
    public var debugDescription: String { "Track2(\(description))" }

    /// The masked PAN, whether an expiry is present, the service code and the discretionary
    /// data's length, so that `dump` and debuggers never show card data.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "primaryAccountNumber": primaryAccountNumber,
                "expiry": expiry == nil ? "absent" : "hidden",
                "serviceCode": serviceCode?.description ?? "absent",
                "discretionaryData": discretionaryData,
            ], displayStyle: .struct)
    }
}
