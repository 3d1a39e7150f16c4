/// The three tracks a READ MAGNETIC STRIPE response carries: each `LEN (1) | ASCII`, with
/// sentinels and without LRC; LEN 0 means absent or unreadable.
///
/// The raw tracks are kept (wiped when released) and parsed on demand, so one malformed
/// track does not hide the others. Printing shows only which tracks are present.
public struct MagneticStripeData: Sendable, Hashable {
    /// Track 1, 2 and 3 as read; an empty value is an absent track.
    public let rawTracks: [SensitiveBytes]

    /// Tracks as the reader sends them, sentinels included.
    public init(track1: SensitiveBytes = SensitiveBytes(), track2: SensitiveBytes = SensitiveBytes(),
                track3: SensitiveBytes = SensitiveBytes()) {
        rawTracks = [track1, track2, track3]
    }

    /// Parses the response DATA that follows the status byte.
    public init(fields bytes: some Collection<UInt8>) throws(MessageDecodingError) {
        let bytes = Array(bytes)
        var tracks: [SensitiveBytes] = []
        var offset = 0
        for _ in 0..<3 {
            guard offset < bytes.count else { throw .malformedTrackList(offset: offset) }
            let length = Int(bytes[offset])
            guard offset + 1 + length <= bytes.count else { throw .malformedTrackList(offset: offset) }
            tracks.append(SensitiveBytes(bytes[(offset + 1)..<(offset + 1 + length)]))
            offset += 1 + length
        }
        guard offset == bytes.count else { throw .malformedTrackList(offset: offset) }
        rawTracks = tracks
    }

    /// The response DATA after the status byte (the emulated reader sends this).
    public var fields: [UInt8] {
        rawTracks.flatMap { track in [UInt8(truncatingIfNeeded: track.count)] + track.revealed() }
    }

    /// Whether no track could be read (the reader answers `03` then).
    public var isEmpty: Bool { rawTracks.allSatisfy { $0.count == 0 } }

    /// Track 1 (name track), parsed on each access.
    public var track1: TrackReading<Track1> { reading(0) { raw throws(MagneticTrackError) in try Track1(parsing: raw) } }
    /// Track 2 (PAN, expiry, service code), parsed on each access.
    public var track2: TrackReading<Track2> { reading(1) { raw throws(MagneticTrackError) in try Track2(parsing: raw) } }
    /// Track 3, checked but kept whole, on each access.
    public var track3: TrackReading<Track3> { reading(2) { raw throws(MagneticTrackError) in try Track3(parsing: raw) } }

    private func reading<Track>(
        _ index: Int, _ parse: (SensitiveBytes) throws(MagneticTrackError) -> Track
    ) -> TrackReading<Track> {
        let raw = rawTracks[index]
        guard raw.count > 0 else { return .absent }
        do {
            return .parsed(try parse(raw))
        } catch {
            return .malformed(error)
        }
    }
}

extension MagneticStripeData: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Which tracks are present and their lengths, e.g.
    /// `MagneticStripeData(track1: 51 characters, track2: 40 characters, track3: absent)`; never card data.
    public var description: String {
        let tracks = rawTracks.enumerated().map { index, raw in
            "track\(index + 1): " + (raw.count == 0 ? "absent" : "\(raw.count) characters")
        }
        return "MagneticStripeData(\(tracks.joined(separator: ", ")))"
    }
    /// The same as ``description``: track lengths only.
    public var debugDescription: String { description }
    /// ``description`` as the only child, so that `dump` and debuggers never show the tracks.
    public var customMirror: Mirror { Mirror(self, children: ["summary": description]) }
}

/// One track of a swipe: absent, parsed, or present but not in its ISO/IEC 7813 format.
public enum TrackReading<Track: Sendable & Hashable>: Sendable, Hashable {
    /// The reader sent the track empty: not on the card, or unreadable.
    case absent
    /// The track parsed in its ISO/IEC 7813 (track 3: ISO/IEC 4909) format.
    case parsed(Track)
    /// The track was read but is not in its format; the error says where, without its contents.
    case malformed(MagneticTrackError)

    /// The parsed track, if there is one.
    public var track: Track? {
        if case .parsed(let track) = self { track } else { nil }
    }
}
