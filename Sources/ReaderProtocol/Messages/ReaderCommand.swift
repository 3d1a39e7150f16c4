/// A host → reader command (reader documentation §3).
public enum ReaderCommand: Sendable, Hashable {
    /// `C0 01`: model, serial, firmware, battery, capabilities.
    case getInfo
    /// `C0 02`: ends the waiting command (answered `02`), then answers `00`.
    case cancel
    /// `C0 10`: on `00` the link switches to YModem for an image of this many bytes.
    case enterFirmwareUpdate(imageSize: UInt32)
    /// `C1 07`: wait up to `timeoutSeconds` for a swipe; 0 means the reader default (30 s).
    case readMagneticStripe(timeoutSeconds: UInt16)
    /// `C2 01`: power the chip card, waiting up to `insertionWaitSeconds` for one (0: do not wait).
    case iccPowerOn(insertionWaitSeconds: UInt8)
    /// `C2 02`: send one short command APDU to the powered card.
    case iccAPDU(CommandAPDU)
    /// `C2 03`: power the card off.
    case iccPowerOff
    /// `C2 04`: is there a card, and is it powered?
    case iccStatus

    /// The reader's default swipe timeout, used when the command asks for 0 seconds.
    public static let defaultSwipeTimeoutSeconds: UInt16 = 30
    /// The APDU sizes the reader accepts in `C2 02`: a short APDU, 4 … 261 bytes.
    public static let apduLengthRange = 4...261

    /// The command's MAIN and SUB, e.g. `C1 07` for ``readMagneticStripe(timeoutSeconds:)``.
    public var code: CommandCode {
        switch self {
        case .getInfo: .getInfo
        case .cancel: .cancel
        case .enterFirmwareUpdate: .enterFirmwareUpdate
        case .readMagneticStripe: .readMagneticStripe
        case .iccPowerOn: .iccPowerOn
        case .iccAPDU: .iccAPDU
        case .iccPowerOff: .iccPowerOff
        case .iccStatus: .iccStatus
        }
    }

    /// The command's frame.
    public var frame: Frame {
        switch self {
        case .getInfo, .cancel, .iccPowerOff, .iccStatus:
            Frame(code: code)
        case .enterFirmwareUpdate(let size):
            Frame(code: code, data: (0..<4).map { UInt8(truncatingIfNeeded: size >> (24 - 8 * $0)) })
        case .readMagneticStripe(let seconds):
            Frame(code: code, data: seconds.bigEndianBytes)
        case .iccPowerOn(let seconds):
            Frame(code: code, data: [seconds])
        case .iccAPDU(let apdu):
            Frame(code: code, data: apdu.encoded().revealed())
        }
    }

    /// Decodes a command frame, validating DATA as the reader would.
    public init(frame: Frame) throws(MessageDecodingError) {
        let data = frame.data
        func expect(_ count: Int) throws(MessageDecodingError) {
            guard data.count == count else { throw .wrongDataLength(frame.code, expected: "\(count)", actual: data.count) }
        }
        switch frame.code {
        case .getInfo:
            try expect(0)
            self = .getInfo
        case .cancel:
            try expect(0)
            self = .cancel
        case .enterFirmwareUpdate:
            try expect(4)
            self = .enterFirmwareUpdate(imageSize: data.reduce(0) { $0 << 8 | UInt32($1) })
        case .readMagneticStripe:
            try expect(2)
            self = .readMagneticStripe(timeoutSeconds: UInt16(data[0]) << 8 | UInt16(data[1]))
        case .iccPowerOn:
            try expect(1)
            self = .iccPowerOn(insertionWaitSeconds: data[0])
        case .iccAPDU:
            guard Self.apduLengthRange.contains(data.count) else {
                throw .wrongDataLength(frame.code, expected: "4…261", actual: data.count)
            }
            do {
                self = .iccAPDU(try CommandAPDU(parsing: data))
            } catch {
                throw .malformedAPDU(error)
            }
        case .iccPowerOff:
            try expect(0)
            self = .iccPowerOff
        case .iccStatus:
            try expect(0)
            self = .iccStatus
        default:
            throw .unknownCommand(frame.code)
        }
    }
}
