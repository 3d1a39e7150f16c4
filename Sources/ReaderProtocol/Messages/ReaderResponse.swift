/// A reader → host response: it echoes its command's MAIN and SUB, and its DATA starts
/// with a status byte (reader documentation §2, §5).
public struct ReaderResponse: Sendable, Hashable {
    /// The command this answers.
    public var code: CommandCode
    /// The status byte: how the command ended.
    public var status: ReaderStatus
    /// What follows the status byte, decoded for the command. Always ``ResponseBody/empty``
    /// unless the status is ``ReaderStatus/success``; trailing bytes of a failure are ignored.
    public var body: ResponseBody

    /// The answer to the command `code` with `status` and, on success, `body`.
    public init(code: CommandCode, status: ReaderStatus, body: ResponseBody = .empty) {
        self.code = code
        self.status = status
        self.body = body
    }

    /// Decodes a response frame for the command its code names.
    public init(frame: Frame) throws(MessageDecodingError) {
        guard let statusByte = frame.data.first else { throw .missingStatus(frame.code) }
        let fields = frame.data.dropFirst()
        code = frame.code
        status = ReaderStatus(rawValue: statusByte)
        guard status == .success else {
            body = .empty
            return
        }
        switch frame.code {
        case .getInfo:
            body = .info(try ReaderInfo(fields: fields))
        case .cancel, .enterFirmwareUpdate, .iccPowerOff:
            guard fields.isEmpty else { throw .wrongDataLength(frame.code, expected: "1", actual: frame.data.count) }
            body = .empty
        case .readMagneticStripe:
            body = .magneticStripe(try MagneticStripeData(fields: fields))
        case .iccPowerOn:
            body = .answerToReset(try AnswerToReset(bytes: Array(fields)))
        case .iccAPDU:
            do {
                body = .apdu(try ResponseAPDU(parsing: Array(fields)))
            } catch {
                throw .malformedAPDU(error)
            }
        case .iccStatus:
            guard fields.count == 1 else { throw .wrongDataLength(frame.code, expected: "2", actual: frame.data.count) }
            guard let state = ICCSlotState(rawValue: fields[fields.startIndex]) else {
                throw .invalidSlotState(fields[fields.startIndex])
            }
            body = .iccStatus(state)
        default:
            body = .unrecognized(Array(fields))
        }
    }

    /// The response's frame (the emulated reader sends this).
    public var frame: Frame {
        Frame(code: code, data: [status.rawValue] + body.fields)
    }

    /// Whether this answers `command`: responses are matched by MAIN and SUB.
    public func answers(_ command: ReaderCommand) -> Bool { code == command.code }
}

/// The decoded DATA of a successful response.
public enum ResponseBody: Sendable, Hashable {
    /// Nothing after the status: CANCEL, POWER OFF, ENTER FIRMWARE UPDATE, and every failure.
    case empty
    /// GET INFO.
    case info(ReaderInfo)
    /// READ MAGNETIC STRIPE.
    case magneticStripe(MagneticStripeData)
    /// ICC POWER ON.
    case answerToReset(AnswerToReset)
    /// ICC APDU.
    case apdu(ResponseAPDU)
    /// ICC STATUS.
    case iccStatus(ICCSlotState)
    /// The success DATA of a command this SDK does not know.
    case unrecognized([UInt8])

    /// What kind of answer this is, for messages: "reader information", "no data", ….
    public var kindName: String {
        switch self {
        case .empty: "no data"
        case .info: "reader information"
        case .magneticStripe: "magnetic stripe data"
        case .answerToReset: "an ATR"
        case .apdu: "an APDU response"
        case .iccStatus: "a slot state"
        case .unrecognized(let bytes): "\(bytes.count) bytes of unrecognised data"
        }
    }

    /// The bytes after the status byte.
    public var fields: [UInt8] {
        switch self {
        case .empty: []
        case .info(let info): info.fields
        case .magneticStripe(let tracks): tracks.fields
        case .answerToReset(let atr): atr.bytes
        case .apdu(let apdu): apdu.encoded().revealed()
        case .iccStatus(let state): [state.rawValue]
        case .unrecognized(let bytes): bytes
        }
    }
}
