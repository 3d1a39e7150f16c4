/// Builds the `fields` of a ``DecodedRecord``: flat names such as `track1.pan`, values as
/// text or numbers, card data masked unless revealing.
struct MessageFields {
    let reveal: Bool
    private(set) var values: [String: FieldValue] = [:]

    init(reveal: Bool) {
        self.reveal = reveal
    }

    mutating func add(_ command: ReaderCommand) {
        switch command {
        case .getInfo, .cancel, .iccPowerOff, .iccStatus:
            break
        case .enterFirmwareUpdate(let size):
            values["imageSize"] = .integer(Int(size))
        case .readMagneticStripe(let seconds):
            values["timeoutSeconds"] = .integer(Int(seconds))
        case .iccPowerOn(let seconds):
            values["insertionWaitSeconds"] = .integer(Int(seconds))
        case .iccAPDU(let apdu):
            add(apdu)
        }
    }

    mutating func add(_ event: ReaderEvent) {
        switch event {
        case .cardInserted, .cardRemoved:
            break
        case .batteryLow(let percent):
            values["batteryPercent"] = .integer(Int(percent))
        case .resetScheduled(let seconds):
            values["secondsUntilReset"] = .integer(Int(seconds))
        case .unrecognized(_, let data):
            values["dataLength"] = .integer(data.count)
        }
    }

    mutating func add(_ body: ResponseBody) {
        switch body {
        case .empty:
            break
        case .info(let info):
            values["model"] = info.model.map(FieldValue.text)
            values["serialNumber"] = info.serialNumber.map(FieldValue.text)
            values["firmwareVersion"] = info.firmwareVersion.map(FieldValue.text)
            values["batteryPercent"] = info.batteryPercent.map { .integer(Int($0)) }
            values["capabilities"] = info.capabilities.map { .text($0.names.joined(separator: ",")) }
            values["bootloaderVersion"] = info.bootloaderVersion.map(FieldValue.text)
            if !info.unknownTags.isEmpty {
                values["unknownTags"] = .text(info.unknownTags.map(\.hexByte).joined(separator: ","))
            }
        case .magneticStripe(let tracks):
            add(tracks)
        case .answerToReset(let atr):
            values["atr"] = .text(atr.bytes.hexString)
            values["protocols"] = .text(atr.protocols.map { "T=\($0)" }.joined(separator: ","))
        case .apdu(let apdu):
            add(apdu)
        case .iccStatus(let state):
            values["slot"] = .text(state.identifier)
        case .unrecognized(let bytes):
            values["dataLength"] = .integer(bytes.count)
        }
    }

    private mutating func add(_ tracks: MagneticStripeData) {
        switch tracks.track1 {
        case .absent: values["track1"] = "absent"
        case .malformed(let error): values["track1"] = "malformed: \(error)"
        case .parsed(let track):
            addFinancialTrack(
                "track1", pan: track.primaryAccountNumber, expiry: track.expiry, serviceCode: track.serviceCode,
                discretionaryData: track.discretionaryData)
            values["track1.name"] = reveal ? .text(track.cardholderName.revealed()) : nil
        }
        switch tracks.track2 {
        case .absent: values["track2"] = "absent"
        case .malformed(let error): values["track2"] = "malformed: \(error)"
        case .parsed(let track):
            addFinancialTrack(
                "track2", pan: track.primaryAccountNumber, expiry: track.expiry, serviceCode: track.serviceCode,
                discretionaryData: track.discretionaryData)
        }
        switch tracks.track3 {
        case .absent: values["track3"] = "absent"
        case .malformed(let error): values["track3"] = "malformed: \(error)"
        case .parsed(let track):
            values["track3"] = "present"
            values["track3.characters"] = reveal ? .text(track.revealed()) : nil
        }
    }

    /// The fields tracks 1 and 2 share (ISO/IEC 7813).
    private mutating func addFinancialTrack(
        _ track: String, pan: PrimaryAccountNumber, expiry: ExpiryDate?, serviceCode: ServiceCode?,
        discretionaryData: SensitiveBytes
    ) {
        values[track] = "parsed"
        values["\(track).pan"] = .text(reveal ? pan.revealed() : pan.masked)
        values["\(track).luhn"] = pan.passesLuhn ? "valid" : "invalid"
        values["\(track).expiry"] = expiry.map { .text($0.yymm) }
        values["\(track).serviceCode"] = serviceCode.map { .text($0.description) }
        values["\(track).discretionaryData"] = reveal ? .text(String(decoding: discretionaryData.revealed(), as: UTF8.self)) : nil
    }

    private mutating func add(_ apdu: CommandAPDU) {
        values["apdu.header"] = .text([apdu.cla, apdu.ins, apdu.p1, apdu.p2].hexString)
        values["apdu.command"] = .text(apdu.commandName)
        values["apdu.dataLength"] = .integer(apdu.data.count)
        values["apdu.le"] = apdu.expectedLength.map { .integer(Int($0)) }
        values["apdu.data"] = reveal && !apdu.carriesPINData ? .text(apdu.data.revealed().hexString) : nil
    }

    private mutating func add(_ apdu: ResponseAPDU) {
        values["apdu.sw"] = .text(apdu.statusWord.sw1.hexByte + apdu.statusWord.sw2.hexByte)
        values["apdu.swMeaning"] = .text(apdu.statusWord.meaning)
        values["apdu.dataLength"] = .integer(apdu.data.count)
        values["apdu.data"] = reveal ? .text(apdu.data.revealed().hexString) : nil
    }
}
