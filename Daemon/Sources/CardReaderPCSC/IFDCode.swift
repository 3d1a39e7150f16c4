import CPCSCDriverInterface

/// The answers and tags of pcsc-lite's driver interface (ifdhandler.h, version 3) that the
/// driver gives. Never IFD_NO_SUCH_DEVICE (617): pcscd then slows every later call and
/// keeps the reader anyway; a reader that is away is IFD_COMMUNICATION_ERROR until back.
package enum IFDCode {
    package static let success: PCSCDriverResponse = 0
    package static let errorTag: PCSCDriverResponse = 600
    package static let errorValueReadOnly: PCSCDriverResponse = 602
    package static let errorNotSupported: PCSCDriverResponse = 606
    package static let protocolNotSupported: PCSCDriverResponse = 607
    package static let errorPowerAction: PCSCDriverResponse = 608
    package static let communicationError: PCSCDriverResponse = 612
    package static let responseTimeout: PCSCDriverResponse = 613
    package static let iccPresent: PCSCDriverResponse = 615
    package static let iccNotPresent: PCSCDriverResponse = 616
    package static let errorInsufficientBuffer: PCSCDriverResponse = 618
}

/// IFDHPowerICC's actions.
package enum IFDPowerAction: PCSCDriverWord {
    case powerUp = 500
    case powerDown = 501
    case reset = 502
}

/// The capability tags the driver answers (IFDHGetCapabilities), pcscd's own and the PC/SC
/// attributes SCardGetAttrib passes through.
package enum IFDCapability: PCSCDriverWord {
    /// The card's ATR.
    case answerToReset = 0x0303
    /// Whether pcscd may use two slots of one reader at once (one slot here).
    case slotThreadSafe = 0x0FAC
    /// Whether pcscd may call the driver for two readers at once.
    case threadSafe = 0x0FAD
    /// Slots per reader.
    case slotCount = 0x0FAE
    /// How many readers the driver serves.
    case simultaneousAccess = 0x0FAF
    /// SCARD_ATTR_VENDOR_NAME.
    case vendorName = 0x0001_0100
    /// SCARD_ATTR_VENDOR_IFD_TYPE.
    case vendorReaderType = 0x0001_0101
    /// SCARD_ATTR_ATR_STRING.
    case answerToResetAttribute = 0x0009_0303
}

/// The PC/SC protocols (SCARD_PROTOCOL_T0, _T1).
package enum IFDProtocol {
    package static let t0: PCSCDriverWord = 1
    package static let t1: PCSCDriverWord = 2
}

/// SCardControl's codes the driver knows.
package enum IFDControlCode {
    /// CM_IOCTL_GET_FEATURE_REQUEST (PC/SC part 10): the reader's features, none here.
    package static let getFeatureRequest: PCSCDriverWord = 0x4200_0000 + 3400
}

/// A call pcscd made that did not succeed, with the code it is answered.
package struct IFDFailure: Error, Hashable {
    package var code: PCSCDriverResponse

    package init(_ code: PCSCDriverResponse) {
        self.code = code
    }
}
