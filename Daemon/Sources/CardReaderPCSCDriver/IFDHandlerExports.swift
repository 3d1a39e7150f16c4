import CardReaderPCSC
import CPCSCDriverInterface

// The functions pcscd looks up in the library (pcsc-lite's IFD handler API, version 3).
// Each turns C's pointers and lengths into values and hands the call to the driver.

/// Opens the reader a `reader.conf.d` entry's DEVICENAME names (`READER@unix:SOCKET`).
@_cdecl("IFDHCreateChannelByName")
public func ifdhCreateChannelByName(_ lun: PCSCDriverWord, _ deviceName: UnsafeMutablePointer<CChar>?) -> PCSCDriverResponse {
    guard let deviceName else { return IFDCode.communicationError }
    return PCSCDriver.shared.open(lun: lun, deviceName: String(cString: deviceName))
}

/// A channel by number: this driver's readers are named, never numbered.
@_cdecl("IFDHCreateChannel")
public func ifdhCreateChannel(_ lun: PCSCDriverWord, _ channel: PCSCDriverWord) -> PCSCDriverResponse {
    DriverLog.pcscd.error("a reader.conf.d entry without DEVICENAME (CHANNELID \(channel)): write DEVICENAME READER@unix:SOCKET")
    return IFDCode.communicationError
}

@_cdecl("IFDHCloseChannel")
public func ifdhCloseChannel(_ lun: PCSCDriverWord) -> PCSCDriverResponse {
    PCSCDriver.shared.close(lun: lun)
}

@_cdecl("IFDHGetCapabilities")
public func ifdhGetCapabilities(
    _ lun: PCSCDriverWord, _ tag: PCSCDriverWord, _ length: UnsafeMutablePointer<PCSCDriverWord>?,
    _ value: UnsafeMutablePointer<UInt8>?
) -> PCSCDriverResponse {
    guard let length, let value else { return IFDCode.errorTag }
    guard let bytes = IFDCapabilities.value(of: tag, for: PCSCDriver.shared.channel(lun)) else { return IFDCode.errorTag }
    guard bytes.count <= Int(length.pointee) else { return IFDCode.errorInsufficientBuffer }
    value.update(from: bytes, count: bytes.count)
    length.pointee = PCSCDriverWord(bytes.count)
    return IFDCode.success
}

/// Nothing is set from outside.
@_cdecl("IFDHSetCapabilities")
public func ifdhSetCapabilities(
    _ lun: PCSCDriverWord, _ tag: PCSCDriverWord, _ length: PCSCDriverWord, _ value: UnsafeMutablePointer<UInt8>?
) -> PCSCDriverResponse {
    IFDCode.errorValueReadOnly
}

/// T=0 or T=1: the reader speaks the card's protocol itself and carries APDUs either way.
@_cdecl("IFDHSetProtocolParameters")
public func ifdhSetProtocolParameters(
    _ lun: PCSCDriverWord, _ protocolNumber: PCSCDriverWord, _ flags: UInt8, _ pts1: UInt8, _ pts2: UInt8, _ pts3: UInt8
) -> PCSCDriverResponse {
    protocolNumber == IFDProtocol.t0 || protocolNumber == IFDProtocol.t1 ? IFDCode.success : IFDCode.protocolNotSupported
}

@_cdecl("IFDHPowerICC")
public func ifdhPowerICC(
    _ lun: PCSCDriverWord, _ action: PCSCDriverWord, _ atr: UnsafeMutablePointer<UInt8>?,
    _ atrLength: UnsafeMutablePointer<PCSCDriverWord>?
) -> PCSCDriverResponse {
    guard let channel = PCSCDriver.shared.channel(lun) else { return IFDCode.communicationError }
    guard let action = IFDPowerAction(rawValue: action) else { return IFDCode.errorNotSupported }
    switch channel.power(action) {
    case .success(let bytes):
        guard let atrLength else { return IFDCode.success }
        guard let atr, bytes.count <= Int(atrLength.pointee) else {
            atrLength.pointee = 0
            return bytes.isEmpty ? IFDCode.success : IFDCode.errorInsufficientBuffer
        }
        atr.update(from: bytes, count: bytes.count)
        atrLength.pointee = PCSCDriverWord(bytes.count)
        return IFDCode.success
    case .failure(let failure):
        atrLength?.pointee = 0
        return failure.code
    }
}

@_cdecl("IFDHTransmitToICC")
public func ifdhTransmitToICC(
    _ lun: PCSCDriverWord, _ sendHeader: PCSCDriverIOHeader, _ command: UnsafeMutablePointer<UInt8>?,
    _ commandLength: PCSCDriverWord, _ response: UnsafeMutablePointer<UInt8>?,
    _ responseLength: UnsafeMutablePointer<PCSCDriverWord>?, _ receiveHeader: UnsafeMutablePointer<PCSCDriverIOHeader>?
) -> PCSCDriverResponse {
    guard let channel = PCSCDriver.shared.channel(lun) else { return IFDCode.communicationError }
    guard let command, let response, let responseLength else { return IFDCode.communicationError }
    let apdu = [UInt8](UnsafeBufferPointer(start: command, count: Int(commandLength)))
    let capacity = Int(responseLength.pointee)
    responseLength.pointee = 0
    switch channel.transmit(apdu, responseCapacity: capacity) {
    case .success(let bytes):
        response.update(from: bytes, count: bytes.count)
        responseLength.pointee = PCSCDriverWord(bytes.count)
        receiveHeader?.pointee = PCSCDriverIOHeader(Protocol: sendHeader.Protocol, Length: 0)
        return IFDCode.success
    case .failure(let failure):
        return failure.code
    }
}

/// The only control code answered is the PC/SC part 10 feature request: no features (no
/// PIN pad is driven through PC/SC).
@_cdecl("IFDHControl")
public func ifdhControl(
    _ lun: PCSCDriverWord, _ controlCode: PCSCDriverWord, _ input: UnsafeMutablePointer<UInt8>?,
    _ inputLength: PCSCDriverWord, _ output: UnsafeMutablePointer<UInt8>?, _ outputLength: PCSCDriverWord,
    _ bytesReturned: UnsafeMutablePointer<PCSCDriverWord>?
) -> PCSCDriverResponse {
    bytesReturned?.pointee = 0
    return controlCode == IFDControlCode.getFeatureRequest ? IFDCode.success : IFDCode.errorNotSupported
}

@_cdecl("IFDHICCPresence")
public func ifdhICCPresence(_ lun: PCSCDriverWord) -> PCSCDriverResponse {
    PCSCDriver.shared.channel(lun)?.presence() ?? IFDCode.communicationError
}
