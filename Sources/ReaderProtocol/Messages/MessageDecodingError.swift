/// Why a frame that arrived intact does not decode as the message its code names.
///
/// Messages never quote DATA: it can hold card data.
public enum MessageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A response with no DATA at all: not even its status byte.
    case missingStatus(CommandCode)
    /// DATA has the wrong length for this command, response or event.
    case wrongDataLength(CommandCode, expected: String, actual: Int)
    /// A host → reader frame with a code that is no documented command.
    case unknownCommand(CommandCode)
    /// An event was expected, but MAIN is not `E0`.
    case notAnEvent(CommandCode)
    /// A GET INFO field runs past the end of the response.
    case truncatedInfoField(offset: Int)
    /// A GET INFO field has a value of the wrong size or characters.
    case invalidInfoField(tag: UInt8)
    /// The three LEN-prefixed tracks do not fill the response exactly.
    case malformedTrackList(offset: Int)
    /// ICC STATUS reported a value other than 00, 01, 02.
    case invalidSlotState(UInt8)
    /// ICC POWER ON returned bytes that are not an ATR.
    case malformedATR(reason: String)
    /// The APDU inside an ICC APDU command or response is malformed.
    case malformedAPDU(APDUError)
    /// A successful response decoded to another command's kind of answer (`received` names
    /// it, e.g. "no data").
    case unexpectedBody(CommandCode, received: String)

    /// What does not decode, with the code, offset or length involved, e.g.
    /// `response C2 01 has no status byte`; never DATA.
    public var description: String {
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
