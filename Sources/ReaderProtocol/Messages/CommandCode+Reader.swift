extension CommandCode {
    /// `C0 01` GET INFO.
    public static let getInfo = CommandCode(main: 0xC0, sub: 0x01)
    /// `C0 02` CANCEL: the only command that may be sent while another waits.
    public static let cancel = CommandCode(main: 0xC0, sub: 0x02)
    /// `C0 10` ENTER FIRMWARE UPDATE.
    public static let enterFirmwareUpdate = CommandCode(main: 0xC0, sub: 0x10)
    /// `C1 07` READ MAGNETIC STRIPE.
    public static let readMagneticStripe = CommandCode(main: 0xC1, sub: 0x07)
    /// `C2 01` ICC POWER ON.
    public static let iccPowerOn = CommandCode(main: 0xC2, sub: 0x01)
    /// `C2 02` ICC APDU.
    public static let iccAPDU = CommandCode(main: 0xC2, sub: 0x02)
    /// `C2 03` ICC POWER OFF.
    public static let iccPowerOff = CommandCode(main: 0xC2, sub: 0x03)
    /// `C2 04` ICC STATUS.
    public static let iccStatus = CommandCode(main: 0xC2, sub: 0x04)

    /// MAIN of reader-initiated events; they are never responses.
    public static let eventMain: UInt8 = 0xE0

    /// Whether frames with this code are reader-initiated events.
    public var isEvent: Bool { main == Self.eventMain }

    /// The documented command name, e.g. `READ MAGNETIC STRIPE`, or nil for an unknown code.
    public var commandName: String? {
        switch self {
        case .getInfo: "GET INFO"
        case .cancel: "CANCEL"
        case .enterFirmwareUpdate: "ENTER FIRMWARE UPDATE"
        case .readMagneticStripe: "READ MAGNETIC STRIPE"
        case .iccPowerOn: "ICC POWER ON"
        case .iccAPDU: "ICC APDU"
        case .iccPowerOff: "ICC POWER OFF"
        case .iccStatus: "ICC STATUS"
        default: nil
        }
    }
}
