/// The cardholder name field of track 1 (ISO/IEC 7813): 2 to 26 characters of the track 1
/// character set, usually `SURNAME/GIVEN NAMES`, often padded with spaces.
///
/// Its description shows only the length; the name comes out only through ``revealed()``.
public struct CardholderName: Sendable, Hashable {
    /// The shortest name ISO/IEC 7813 allows.
    public static let minimumLength = 2
    /// The longest name ISO/IEC 7813 allows.
    public static let maximumLength = 26

    /// The characters as ASCII bytes, exactly as on the track (padding included).
    public let characters: SensitiveBytes

    /// Validates 2 to 26 characters of the track 1 character set, without `^`.
    public init(characters: SensitiveBytes) throws(CardholderNameError) {
        if let offset = characters.withUnsafeBytes({ $0.firstIndex { !$0.isTrack1NameCharacter } }) {
            throw .illegalCharacter(offset: offset)
        }
        guard (Self.minimumLength...Self.maximumLength).contains(characters.count) else {
            throw .invalidLength(characters.count)
        }
        self.characters = characters
    }

    /// Validates a name string, e.g. `"DOE/JOHN"`.
    public init(_ name: some StringProtocol) throws(CardholderNameError) {
        try self.init(characters: SensitiveBytes(name.utf8))
    }

    /// The name exactly as on the track.
    public func revealed() -> String {
        characters.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The name split at the first `/` into surname and given names (which may carry a
    /// middle initial and, after a `.`, a title), without trailing spaces. Without a `/`
    /// the whole name is the surname and `givenNames` is `nil`.
    public func revealedComponents() -> (surname: String, givenNames: String?) {
        let name = revealed()
        let parts = name.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let surname = parts[0].trimmingTrailingSpaces
        return (surname, parts.count > 1 ? parts[1].trimmingTrailingSpaces : nil)
    }
}

extension CardholderName: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The length only, e.g. `cardholder name (8 characters, hidden)`.
    public var description: String { "cardholder name (\(characters.count) characters, hidden)" }

    /// The length only, e.g. `CardholderName(8 characters, hidden)`.
    public var debugDescription: String { "CardholderName(\(characters.count) characters, hidden)" }

    /// The length only, so that `dump` and debuggers never show the name.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": characters.count], displayStyle: .struct)
    }
}

/// Why a value is not a track 1 cardholder name.
public struct CardholderNameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// The length found or the offending position, never the name's characters.
    public var description: String { storage.description }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// Not 2 to 26 characters; carries the number found.
    public static func invalidLength(_ count: Int) -> Self {
        Self(.invalidLength(count))
    }

    /// The character at this position (from 0) is outside the track 1 character set or is `^`.
    public static func illegalCharacter(offset: Int) -> Self {
        Self(.illegalCharacter(offset: offset))
    }

    /// What is wrong, as a stable identifier (`invalid-length`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// Not 2 to 26 characters; carries the number found.
        public static let invalidLength = Self(rawValue: "invalid-length")

        /// The character at this position (from 0) is outside the track 1 character set or is `^`.
        public static let illegalCharacter = Self(rawValue: "illegal-character")
    }

    enum Storage: Sendable, Hashable {
        case invalidLength(Int)
        case illegalCharacter(offset: Int)

        var code: Code {
            switch self {
            case .invalidLength: .invalidLength
            case .illegalCharacter: .illegalCharacter
            }
        }

        var description: String {
            switch self {
            case .invalidLength(let count):
                "cardholder name has \(count) characters; ISO/IEC 7813 allows \(CardholderName.minimumLength)–\(CardholderName.maximumLength)"
            case .illegalCharacter(let offset):
                "cardholder name character at offset \(offset) is not allowed on track 1"
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingTrailingSpaces: String {
        var trimmed = self
        while trimmed.last == " " { trimmed.removeLast() }
        return String(trimmed)
    }
}
