/// The recorded-packet text format: one BLE packet per line.
///
/// ```
/// # GET INFO at MTU 23
/// 0.000 > 02 C0 01 00 00 00 54
/// 0.041 < 02C00100 1A00...      # hex with or without spaces
/// ```
///
/// - `>` marks a host → reader write, `<` a reader → host notification.
/// - An optional timestamp (seconds, a decimal number) may precede the direction mark.
/// - `#` starts a comment, on its own line or after the bytes; blank lines are ignored.
/// - Hex digits come in pairs; spaces between pairs are optional.
public enum PacketRecordingText {
    /// Parses a whole recording; the first malformed line stops it with its line number.
    public static func parse(_ text: String) throws(RecordingFormatError) -> [RecordedPacket] {
        var packets: [RecordedPacket] = []
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if let packet = try parse(line: line, number: lineNumber) {
                packets.append(packet)
            }
        }
        return packets
    }

    /// Parses one line: a packet, or nil for a blank or comment line.
    public static func parse(line: Substring, number: Int) throws(RecordingFormatError) -> RecordedPacket? {
        let content = line.prefix { $0 != "#" }.trimmingWhitespace()
        guard !content.isEmpty else { return nil }
        guard let markIndex = content.firstIndex(where: { $0 == ">" || $0 == "<" }) else {
            throw RecordingFormatError(line: number, problem: .missingDirection)
        }
        let direction: LinkDirection = content[markIndex] == ">" ? .hostToReader : .readerToHost
        let stamp = content[..<markIndex].trimmingWhitespace()
        var timestamp: Double?
        if !stamp.isEmpty {
            guard stamp.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let seconds = Double(String(stamp)),
                seconds.isFinite
            else {
                throw RecordingFormatError(line: number, problem: .invalidTimestamp)
            }
            timestamp = seconds
        }
        let bytes: [UInt8]
        do {
            bytes = try HexText.bytes(content[content.index(after: markIndex)...])
        } catch {
            throw RecordingFormatError(line: number, problem: .notHex(error))
        }
        guard !bytes.isEmpty else { throw RecordingFormatError(line: number, problem: .noBytes) }
        return RecordedPacket(direction: direction, bytes: bytes, timestamp: timestamp, location: number)
    }

    /// Renders packets in this format, one line each, hex with spaces. Timestamps are written
    /// in plain decimal, as the parser reads them; one that is negative or not finite, which
    /// the format cannot hold, is left out.
    public static func render(_ packets: [RecordedPacket]) -> String {
        packets.map { packet in
            let stamp = packet.timestamp.flatMap(plainDecimal).map { "\($0) " } ?? ""
            let mark = packet.direction == .hostToReader ? ">" : "<"
            return stamp + mark + " " + packet.bytes.map(\.hexByte).joined(separator: " ")
        }.joined(separator: "\n") + "\n"
    }

    /// `seconds` in digits and at most one point, no exponent (`1e-05` → `0.00001`,
    /// `1e+16` → `10000000000000000`): the shortest digits that read back as the same
    /// value, placed by hand. Nil for a negative or non-finite value.
    static func plainDecimal(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        let shortest = "\(seconds)"
        guard let mark = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }),
            let exponent = Int(shortest[shortest.index(after: mark)...])
        else { return shortest }
        let mantissa = shortest[..<mark]
        let point = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
        let digits = String(mantissa.filter { $0 != "." })
        let pointAt = mantissa.distance(from: mantissa.startIndex, to: point) + exponent
        if pointAt <= 0 { return "0." + String(repeating: "0", count: -pointAt) + digits }
        if pointAt >= digits.count { return digits + String(repeating: "0", count: pointAt - digits.count) }
        return String(digits.prefix(pointAt)) + "." + String(digits.dropFirst(pointAt))
    }
}

/// Why a recording could not be read.
public struct RecordingFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the line.
    public struct Problem: Sendable, Hashable {
        /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
        public var code: Code { storage.code }

        let storage: Storage

        init(_ storage: Storage) {
            self.storage = storage
        }

        /// No `>` (host to reader) or `<` (reader to host) mark.
        public static let missingDirection = Self(.missingDirection)

        /// Text before the direction mark that is not a number of seconds.
        public static let invalidTimestamp = Self(.invalidTimestamp)

        /// The bytes after the direction mark are not hex.
        public static func notHex(_ hex: HexText.Problem) -> Self {
            Self(.notHex(hex))
        }

        /// Nothing follows the direction mark.
        public static let noBytes = Self(.noBytes)

        /// What is wrong, as a stable identifier (`missing-direction`).
        public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            /// No `>` (host to reader) or `<` (reader to host) mark.
            public static let missingDirection = Self(rawValue: "missing-direction")

            /// Text before the direction mark that is not a number of seconds.
            public static let invalidTimestamp = Self(rawValue: "invalid-timestamp")

            /// The bytes after the direction mark are not hex.
            public static let notHex = Self(rawValue: "not-hex")

            /// Nothing follows the direction mark.
            public static let noBytes = Self(rawValue: "no-bytes")
        }

        enum Storage: Sendable, Hashable {
            case missingDirection
            case invalidTimestamp
            case notHex(HexText.Problem)
            case noBytes

            var code: Code {
                switch self {
                case .missingDirection: .missingDirection
                case .invalidTimestamp: .invalidTimestamp
                case .notHex: .notHex
                case .noBytes: .noBytes
                }
            }
        }
    }

    /// Line number (text) or record number (capture) of the problem.
    public var line: Int
    /// What is wrong there.
    public var problem: Problem

    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Problem.Code { problem.code }

    /// A `problem` at line (or record) `line`.
    public init(line: Int, problem: Problem) {
        self.line = line
        self.problem = problem
    }

    /// The line and what is wrong, e.g. `line 12: 'G' is not a hex digit`; never the line's bytes.
    public var description: String {
        let what =
            switch problem.storage {
            case .missingDirection: "no direction mark ('>' host to reader, '<' reader to host)"
            case .invalidTimestamp: "the timestamp before the direction mark is not a number of seconds"
            case .notHex(let problem): problem.description
            case .noBytes: "no bytes after the direction mark"
            }
        return "line \(line): \(what)"
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
