import Testing
@testable import ReaderProtocol

/// Commands, responses and events against the reader documentation (§3–§6 and the worked
/// examples in DocumentedExamples).
@Suite struct ReaderMessageTests {
    typealias Doc = DocumentedExamples

    private func frame(_ bytes: [UInt8]) throws -> Frame {
        var decoder = FrameDecoder()
        let events = decoder.decode(bytes)
        guard case .frame(let frame, _)? = events.first, events.count == 1 else {
            throw DecodeFailure()
        }
        return frame
    }

    private struct DecodeFailure: Error {}

    @Test func documentedRequestsDecodeToTheirCommands() throws {
        #expect(try ReaderCommand(frame: frame(Doc.getInfoRequest)) == .getInfo)
        #expect(try ReaderCommand(frame: frame(Doc.cancelRequest)) == .cancel)
        #expect(try ReaderCommand(frame: frame(Doc.readMagneticStripeDefault)) == .readMagneticStripe(timeoutSeconds: 0))
        #expect(try ReaderCommand(frame: frame(Doc.readMagneticStripe30s)) == .readMagneticStripe(timeoutSeconds: 30))
        #expect(try ReaderCommand(frame: frame(Doc.iccPowerOnNoWait)) == .iccPowerOn(insertionWaitSeconds: 0))
        guard case .iccAPDU(let apdu) = try ReaderCommand(frame: frame(Doc.selectPPSE)) else {
            Issue.record("SELECT PPSE is not an ICC APDU")
            return
        }
        // SELECT by name: 00 A4 04 00, Lc 0E, "2PAY.SYS.DDF01", Le 00 = 256 (ISO/IEC 7816-4).
        #expect([apdu.cla, apdu.ins, apdu.p1, apdu.p2] == [0x00, 0xA4, 0x04, 0x00])
        #expect(apdu.data.revealed() == Array("2PAY.SYS.DDF01".utf8))
        #expect(apdu.expectedLength == 256)
    }

    @Test func commandsEncodeToTheDocumentedFrames() throws {
        #expect(try ReaderCommand.readMagneticStripe(timeoutSeconds: 30).frame.encoded() == Doc.readMagneticStripe30s)
        #expect(try ReaderCommand.iccPowerOn(insertionWaitSeconds: 0).frame.encoded() == Doc.iccPowerOnNoWait)
        #expect(try ReaderCommand.getInfo.frame.encoded() == Doc.getInfoRequest)
        // ENTER FIRMWARE UPDATE: image size, 4 bytes big-endian (§3).
        #expect(ReaderCommand.enterFirmwareUpdate(imageSize: 0x0003_0001).frame.data == [0x00, 0x03, 0x00, 0x01])
    }

    @Test func commandDataOfTheWrongLengthIsRefused() {
        #expect(throws: MessageDecodingError.wrongDataLength(.iccPowerOn, expected: "1", actual: 2)) {
            try ReaderCommand(frame: Frame(code: .iccPowerOn, data: [0, 0]))
        }
        #expect(throws: MessageDecodingError.wrongDataLength(.iccAPDU, expected: "4…261", actual: 3)) {
            try ReaderCommand(frame: Frame(code: .iccAPDU, data: [0, 0xA4, 0]))
        }
        #expect(throws: MessageDecodingError.unknownCommand(CommandCode(main: 0xC3, sub: 0x01))) {
            try ReaderCommand(frame: Frame(main: 0xC3, sub: 0x01))
        }
    }

    @Test func documentedPowerOnResponseCarriesTheATR() throws {
        let response = try ReaderResponse(frame: frame(Doc.iccPowerOnResponse))
        #expect(response.status == .success)
        guard case .answerToReset(let atr) = response.body else {
            Issue.record("no ATR in \(response)")
            return
        }
        // 3B: direct convention; T0 68: TB1 and TC1 follow, 8 historical bytes; no TD1 → T=0.
        #expect(atr.bytes == Doc.atr)
        #expect(atr.protocols == [0])
        #expect(atr.historicalBytes == [0x00, 0x73, 0xC8, 0x40, 0x13, 0x00, 0x90, 0x00])
        #expect(response.answers(.iccPowerOn(insertionWaitSeconds: 0)))
        #expect(!response.answers(.iccAPDU(try .getResponse(expectedLength: 1))))
    }

    /// A T=1 ATR with TCK: 3B 80 80 01 01 — TD1 80 (T=0, TD2 follows), TD2 01 (T=1), no
    /// historical bytes; TCK = XOR of T0…TD2 = 80^80^01 = 01 (ISO/IEC 7816-3 §8.2.5).
    @Test func atrWithProtocolT1NeedsAValidCheckByte() throws {
        #expect(try AnswerToReset(bytes: [0x3B, 0x80, 0x80, 0x01, 0x01]).protocols == [0, 1])
        #expect(throws: MessageDecodingError.malformedATR(reason: "TCK check byte does not verify")) {
            try AnswerToReset(bytes: [0x3B, 0x80, 0x80, 0x01, 0x02])
        }
        // T0 = 68: TC1 follows, then 8 historical bytes; only TC1 is there.
        #expect(throws: MessageDecodingError.malformedATR(reason: "8 historical bytes announced, fewer present")) {
            try AnswerToReset(bytes: [0x3B, 0x68, 0x00])
        }
    }

    @Test func documentedSwipeResponseParsesBothTracks() throws {
        let response = try ReaderResponse(frame: frame(Doc.swipeResponse))
        guard case .magneticStripe(let tracks) = response.body else {
            Issue.record("no tracks in \(response)")
            return
        }
        let track1 = try #require(tracks.track1.track)
        let track2 = try #require(tracks.track2.track)
        #expect(track1.primaryAccountNumber.revealed() == "4111111111111111")
        #expect(track1.cardholderName.revealed() == "DOE/JOHN")
        #expect(track2.expiry?.yymm == "2512")
        #expect(tracks.track3 == .absent)
        #expect(!"\(tracks)".contains("4111"))
    }

    @Test func aMalformedTrackDoesNotHideTheOthers() throws {
        let stripe = MagneticStripeData(
            track1: SensitiveBytes(Array("%B41111^NO END".utf8)),
            track2: SensitiveBytes(Array(Doc.swipeTrack2.utf8)))
        guard case .malformed = stripe.track1 else {
            Issue.record("track 1 should be malformed")
            return
        }
        #expect(stripe.track2.track?.primaryAccountNumber.lastFour == "1111")
        #expect(try MagneticStripeData(fields: stripe.fields) == stripe)
    }

    @Test func trackListMustFillTheResponse() {
        #expect(throws: MessageDecodingError.malformedTrackList(offset: 0)) {
            try MagneticStripeData(fields: [0x05, 0x3B])
        }
        #expect(throws: MessageDecodingError.malformedTrackList(offset: 3)) {
            try MagneticStripeData(fields: [0x00, 0x00, 0x00, 0x00])
        }
    }

    /// §5: every documented code, and a reserved one kept with its value.
    @Test func everyStatusCodeIsTyped() throws {
        let expected: [ReaderStatus] = [
            .success, .cardholderTimeout, .cancelled, .unreadableStripe, .noCard, .cardRemoved, .unknownCommand,
            .invalidParameter, .busy, .cardNotResponding, .cardNotPowered, .batteryTooLow,
        ]
        for (code, status) in expected.enumerated() {
            #expect(ReaderStatus(rawValue: UInt8(code)) == status)
            #expect(status.rawValue == UInt8(code))
        }
        #expect(ReaderStatus(rawValue: 0x3C) == .reserved(0x3C))
        #expect(ReaderStatus(rawValue: 0x3C).rawValue == 0x3C)
        let busy = try ReaderResponse(frame: Frame(code: .readMagneticStripe, data: [0x08]))
        #expect(busy.status == .busy && busy.body == .empty)
    }

    @Test func responseWithoutStatusIsAnError() {
        #expect(throws: MessageDecodingError.missingStatus(.getInfo)) {
            try ReaderResponse(frame: Frame(code: .getInfo))
        }
    }

    @Test func getInfoSkipsUnknownTagsAndKeepsTheFirstOfDuplicates() throws {
        let fields: [UInt8] = [0x01, 0x04] + Array("VPOS".utf8) + [0x7A, 0x01, 0xFF, 0x04, 0x01, 0x50, 0x01, 0x01, 0x58,
                                                                  0x05, 0x01, 0x0B, 0x03, 0x06] + Array("2.4.1".utf8) + [0x00]
        let info = try ReaderInfo(fields: fields)
        #expect(info.model == "VPOS")
        #expect(info.batteryPercent == 80)
        #expect(info.capabilities == [.magneticStripe, .contactChip, .pinPad])
        #expect(info.firmwareVersion == "2.4.1") // trailing NUL trimmed
        #expect(info.unknownTags == [0x7A])
        #expect(try ReaderInfo(fields: info.fields).model == "VPOS")
    }

    @Test func getInfoRejectsTruncatedAndInvalidFields() {
        #expect(throws: MessageDecodingError.truncatedInfoField(offset: 3)) {
            try ReaderInfo(fields: [0x04, 0x01, 0x50, 0x01, 0x05, 0x41])
        }
        #expect(throws: MessageDecodingError.invalidInfoField(tag: 0x04)) {
            try ReaderInfo(fields: [0x04, 0x02, 0x50, 0x50])
        }
        #expect(throws: MessageDecodingError.invalidInfoField(tag: 0x02)) {
            try ReaderInfo(fields: [0x02, 0x02, 0x41, 0x07])
        }
    }

    /// §6, including the documented card-inserted frame.
    @Test func eventsDecodeAndEncode() throws {
        #expect(try ReaderEvent(frame: frame(Doc.cardInsertedEvent)) == .cardInserted)
        #expect(try ReaderEvent(frame: Frame(main: 0xE0, sub: 0x03, data: [15])) == .batteryLow(percent: 15))
        #expect(try ReaderEvent(frame: Frame(main: 0xE0, sub: 0x04, data: [0x01, 0x2C])) == .resetScheduled(secondsUntilReset: 300))
        #expect(try ReaderEvent(frame: Frame(main: 0xE0, sub: 0x09, data: [1])) == .unrecognized(sub: 0x09, data: [1]))
        #expect(throws: MessageDecodingError.wrongDataLength(CommandCode(main: 0xE0, sub: 0x03), expected: "1", actual: 0)) {
            try ReaderEvent(frame: Frame(main: 0xE0, sub: 0x03))
        }
        #expect(try ReaderEvent.resetScheduled(secondsUntilReset: 300).frame.encoded() == Frame(main: 0xE0, sub: 0x04, data: [0x01, 0x2C]).encoded())
        #expect(try ReaderEvent.cardInserted.frame.encoded() == Doc.cardInsertedEvent)
    }

    @Test func directionDecidesBetweenCommandResponseAndEvent() throws {
        #expect(try ReaderMessage(frame: frame(Doc.getInfoRequest), direction: .hostToReader) == .command(.getInfo))
        #expect(try ReaderMessage(frame: frame(Doc.cardInsertedEvent), direction: .readerToHost) == .event(.cardInserted))
        let status = try ReaderMessage(frame: Frame(code: .iccStatus, data: [0x00, 0x02]), direction: .readerToHost)
        #expect(status == .response(ReaderResponse(code: .iccStatus, status: .success, body: .iccStatus(.cardPowered))))
        #expect(throws: MessageDecodingError.invalidSlotState(0x03)) {
            try ReaderResponse(frame: Frame(code: .iccStatus, data: [0x00, 0x03]))
        }
    }

    @Test func responsesEncodeBackToTheirFrames() throws {
        let swipe = try ReaderResponse(frame: frame(Doc.swipeResponse))
        #expect(try swipe.frame.encoded() == Doc.swipeResponse)
        let powerOn = try ReaderResponse(frame: frame(Doc.iccPowerOnResponse))
        #expect(try powerOn.frame.encoded() == Doc.iccPowerOnResponse)
    }
}
