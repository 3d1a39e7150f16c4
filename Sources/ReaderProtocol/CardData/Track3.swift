/// Magnetic stripe track 3 (ISO/IEC 4909), kept whole as sensitive data: `;` data `?`,
/// as the reader sends it (sentinels included, LRC removed).
public struct Track3: Sendable, Hashable {
    /// At most 107 characters including both sentinels and the LRC (ISO/IEC 4909), so 106 without the LRC.
    public static let maximumLength = 106

    /// The whole track, sentinels included.
    public let characters: SensitiveBytes

    /// Checks the sentinels, the length and the character set (ASCII 0x30–0x3F).
    public init(parsing bytes: SensitiveBytes) throws(MagneticTrackError) {
        try bytes.withUnsafeBytes { (buffer) throws(MagneticTrackError) in
            let end = try MagneticTrackParser.checkFrame(
                buffer, track: 3, startSentinel: UInt8(ascii: ";"), maximumLength: Self.maximumLength)
            if let illegal = buffer[1..<end].firstIndex(where: { !$0.isTrack2DataCharacter }) {
                throw MagneticTrackError(track: 3, problem: .illegalCharacter(offset: illegal, field: .data))
            }
        }
        characters = bytes
    }

    /// Parses the track's ASCII characters.
    public init(parsing track: some StringProtocol) throws(MagneticTrackError) {
        try self.init(parsing: SensitiveBytes(track.utf8))
    }

    /// The whole track as text. Use only where the track must leave the SDK.
    public func revealed() -> String {
        characters.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}

extension Track3: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The length only.
    public var description: String { "track 3: \(characters.count) characters (hidden)" }

    /// The length only, e.g. `Track3(40 characters, hidden)`.
    public var debugDescription: String { "Track3(\(characters.count) characters, hidden)" }

    /// The length only, so that `dump` and debuggers never show the track.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": characters.count], displayStyle: .struct)
    }
}
