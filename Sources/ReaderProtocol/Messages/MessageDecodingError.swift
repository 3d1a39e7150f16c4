/// Why a frame that arrived intact does not decode as the message its code names.
///
/// Messages never quote DATA: it can hold card data.
public struct MessageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Code { storage.code }

    /// What does not decode, with the code, offset or length involved, e.g.
    /// `response C2 01 has no status byte`; never DATA.
    public var description: String { storage.description }

    /// The command, response or event that does not decode, when the problem concerns one.
    public var command: CommandCode? {
        switch storage {
        case .missingStatus(let command),
            .wrongDataLength(let command, _, _),
            .unknownCommand(let command),
            .notAnEvent(let command),
            .unexpectedBody(let command, _):
            command
        default: nil
        }
    }

    /// Why the ATR is malformed, for ``Code/malformedATR``.
    public var reason: String? {
        if case .malformedATR(let reason) = storage { reason } else { nil }
    }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// A response with no DATA at all: not even its status byte.
    public static func missingStatus(_ command: CommandCode) -> Self {
        Self(.missingStatus(command))
    }

    /// DATA has the wrong length for this command, response or event.
    public static func wrongDataLength(_ command: CommandCode, expected: String, actual: Int) -> Self {
        Self(.wrongDataLength(command, expected: expected, actual: actual))
    }

    /// A host → reader frame with a code that is no documented command.
    public static func unknownCommand(_ command: CommandCode) -> Self {
        Self(.unknownCommand(command))
    }

    /// An event was expected, but MAIN is not `E0`.
    public static func notAnEvent(_ command: CommandCode) -> Self {
        Self(.notAnEvent(command))
    }

    /// A GET INFO field runs past the end of the response.
    public static func truncatedInfoField(offset: Int) -> Self {
        Self(.truncatedInfoField(offset: offset))
    }

    /// A GET INFO field has a value of the wrong size or characters.
    public static func invalidInfoField(tag: UInt8) -> Self {
        Self(.invalidInfoField(tag: tag))
    }

    /// The three LEN-prefixed tracks do not fill the response exactly.
    public static func malformedTrackList(offset: Int) -> Self {
        Self(.malformedTrackList(offset: offset))
    }

    /// ICC STATUS reported a value other than 00, 01, 02.
    public static func invalidSlotState(_ value: UInt8) -> Self {
        Self(.invalidSlotState(value))
    }

    /// ICC POWER ON returned bytes that are not an ATR.
    public static func malformedATR(reason: String) -> Self {
        Self(.malformedATR(reason: reason))
    }

    /// The APDU inside an ICC APDU command or response is malformed.
    public static func malformedAPDU(_ apdu: APDUError) -> Self {
        Self(.malformedAPDU(apdu))
    }

    /// A successful response decoded to another command's kind of answer (`received` names
    /// it, e.g. "no data").
    public static func unexpectedBody(_ command: CommandCode, received: String) -> Self {
        Self(.unexpectedBody(command, received: received))
    }

    /// What is wrong, as a stable identifier (`missing-status`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// A response with no DATA at all: not even its status byte.
        public static let missingStatus = Self(rawValue: "missing-status")

        /// DATA has the wrong length for this command, response or event.
        public static let wrongDataLength = Self(rawValue: "wrong-data-length")

        /// A host → reader frame with a code that is no documented command.
        public static let unknownCommand = Self(rawValue: "unknown-command")

        /// An event was expected, but MAIN is not `E0`.
        public static let notAnEvent = Self(rawValue: "not-an-event")

        /// A GET INFO field runs past the end of the response.
        public static let truncatedInfoField = Self(rawValue: "truncated-info-field")

        /// A GET INFO field has a value of the wrong size or characters.
        public static let invalidInfoField = Self(rawValue: "invalid-info-field")

        /// The three LEN-prefixed tracks do not fill the response exactly.
        public static let malformedTrackList = Self(rawValue: "malformed-track-list")

        /// ICC STATUS reported a value other than 00, 01, 02.
        public static let invalidSlotState = Self(rawValue: "invalid-slot-state")

        /// ICC POWER ON returned bytes that are not an ATR.
        public static let malformedATR = Self(rawValue: "malformed-atr")

        /// The APDU inside an ICC APDU command or response is malformed.
        public static let malformedAPDU = Self(rawValue: "malformed-apdu")

        /// A successful response decoded to another command's kind of answer (`received` names
        /// it, e.g. "no data").
        public static let unexpectedBody = Self(rawValue: "unexpected-body")
    }

    enum Storage: Sendable, Hashable {
        case missingStatus(CommandCode)
        case wrongDataLength(CommandCode, expected: String, actual: Int)
        case unknownCommand(CommandCode)
        case notAnEvent(CommandCode)
        case truncatedInfoField(offset: Int)
        case invalidInfoField(tag: UInt8)
        case malformedTrackList(offset: Int)
        case invalidSlotState(UInt8)
        case malformedATR(reason: String)
        case malformedAPDU(APDUError)
        case unexpectedBody(CommandCode, received: String)

        var code: Code {
            switch self {
            case .missingStatus: .missingStatus
            case .wrongDataLength: .wrongDataLength
            case .unknownCommand: .unknownCommand
            case .notAnEvent: .notAnEvent
            case .truncatedInfoField: .truncatedInfoField
            case .invalidInfoField: .invalidInfoField
            case .malformedTrackList: .malformedTrackList
            case .invalidSlotState: .invalidSlotState
            case .malformedATR: .malformedATR
            case .malformedAPDU: .malformedAPDU
            case .unexpectedBody: .unexpectedBody
            }
        }

        var description: String {
            switch self {
            case .missingStatus(let code):
                "response \(code) has no status byte"
            case .wrongDataLength(let code, let expected, let actual):
                "\(code.commandName ?? "frame \(code)"): DATA is \(actual) bytes, expected \(expected)"
            case .unknownCommand(let code):
                "\(code) is not a documented command"
            case .notAnEvent(let code):
                "\(code) is not an event (MAIN must be E0)"
            case .truncatedInfoField(let offset):
                "GET INFO field at offset \(offset) runs past the end of the response"
            case .invalidInfoField(let tag):
                "GET INFO field \(tag.hexByte) has an invalid value"
            case .malformedTrackList(let offset):
                "track list malformed at offset \(offset): three LEN-prefixed tracks must fill the response"
            case .invalidSlotState(let value):
                "ICC STATUS value \(value.hexByte) is not 00, 01 or 02"
            case .malformedATR(let reason):
                "malformed ATR: \(reason)"
            case .malformedAPDU(let error):
                "malformed APDU: \(error)"
            case .unexpectedBody(let code, let received):
                "\(code.commandName ?? "response \(code)") answered with \(received)"
            }
        }
    }
}
