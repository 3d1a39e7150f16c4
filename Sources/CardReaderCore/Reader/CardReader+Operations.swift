import ReaderProtocol

extension CardReader {
    /// Model, serial number, firmware, battery and capabilities (GET INFO).
    public func info() async throws(CardReaderError) -> ReaderInfo {
        let body = try await succeed(.getInfo, answerTime: Self.shortAnswerTime)
        guard case .info(let info) = body else { throw Self.unexpected(body, answering: .getInfo) }
        return info
    }

    /// Waits up to `timeout` (1 s … 65535 s, rounded up to whole seconds) for a swipe and
    /// returns its tracks. The card number prints masked; see `MagneticStripeData`.
    ///
    /// Distinct outcomes: ``CardReaderError/cardholderTimeout(_:)`` when nobody swiped,
    /// ``CardReaderError/badSwipe`` when no track could be read,
    /// ``CardReaderError/cancelled`` when the calling task was cancelled.
    public func readMagneticStripe(timeout: Duration = .seconds(30)) async throws(CardReaderError)
        -> MagneticStripeData
    {
        let seconds = try Self.wholeSeconds(timeout, in: 1...Int(UInt16.max), what: "swipe timeout")
        let body = try await succeed(
            .readMagneticStripe(timeoutSeconds: UInt16(seconds)), answerTime: .seconds(seconds + 1))
        guard case .magneticStripe(let tracks) = body else {
            throw Self.unexpected(body, answering: .readMagneticStripe)
        }
        return tracks
    }

    /// Powers the chip card and returns its ATR, waiting up to `insertion` (0 … 255 s; 30 s
    /// by default, as a swipe does) for a cardholder to insert one. A card already in the
    /// slot is powered at once; with zero, ``CardReaderError/noCard`` if there is none.
    public func powerOnCard(waitingForInsertion insertion: Duration = .seconds(30)) async throws(CardReaderError)
        -> AnswerToReset
    {
        let seconds = try Self.wholeSeconds(insertion, in: 0...255, what: "insertion wait")
        let body = try await succeed(
            .iccPowerOn(insertionWaitSeconds: UInt8(seconds)), answerTime: .seconds(seconds + 2))
        guard case .answerToReset(let atr) = body else { throw Self.unexpected(body, answering: .iccPowerOn) }
        return atr
    }

    /// Powers the chip card off.
    public func powerOffCard() async throws(CardReaderError) {
        _ = try await succeed(.iccPowerOff, answerTime: Self.shortAnswerTime)
    }

    /// Whether a card is in the slot, and powered (ICC STATUS).
    public func cardSlotState() async throws(CardReaderError) -> ICCSlotState {
        let body = try await succeed(.iccStatus, answerTime: Self.shortAnswerTime)
        guard case .iccStatus(let state) = body else { throw Self.unexpected(body, answering: .iccStatus) }
        return state
    }

    /// Sends a command APDU to the powered card and returns its response APDU.
    ///
    /// The reader speaks T=0 as the card does, so by default this does what a T=0
    /// terminal does: on `61xx` it sends GET RESPONSE and joins the data, and on `6Cxx` it
    /// sends the command again with Le = xx. Either can be switched off in `options`. The
    /// status word, whatever it is, comes back in the response: it is the card's answer,
    /// not a reader failure.
    public func transmit(_ apdu: CommandAPDU, options: APDUExchangeOptions = APDUExchangeOptions()) async throws(
        CardReaderError
    ) -> ResponseAPDU {
        guard !apdu.needsExtendedLength else {
            throw .invalidRequest("the reader carries short APDUs only (at most 255 data bytes, Le at most 256)")
        }
        var collected = SensitiveBytes()
        var command = apdu
        for _ in 0..<options.maximumExchanges {
            let response = try await exchange(command)
            switch response.statusWord.category {
            case .wrongLength(let exact) where options.resendWithCorrectLength:
                command = try Self.resending(command, expectedLength: exact)
            case .moreDataAvailable(let available) where options.followGetResponse:
                collected.append(contentsOf: response.data)
                command = try Self.getResponse(expectedLength: available)
            default:
                collected.append(contentsOf: response.data)
                return ResponseAPDU(data: collected, statusWord: response.statusWord)
            }
        }
        throw .invalidCardData("the card asked for more than \(options.maximumExchanges) exchanges for one command")
    }

    private func exchange(_ apdu: CommandAPDU) async throws(CardReaderError) -> ResponseAPDU {
        let body = try await succeed(.iccAPDU(apdu), answerTime: .seconds(5))
        guard case .apdu(let response) = body else { throw Self.unexpected(body, answering: .iccAPDU) }
        return response
    }

    /// A successful answer whose body is not the command's kind. Responses are matched to
    /// commands by code and decoded by it, so this names what arrived rather than guess.
    static func unexpected(_ body: ResponseBody, answering code: CommandCode) -> CardReaderError {
        .malformedResponse(code, .unexpectedBody(code, received: body.kindName))
    }

    /// Performs `command` and returns its body, mapping a failure status to its error.
    private func succeed(_ command: ReaderCommand, answerTime: Duration) async throws(CardReaderError) -> ResponseBody {
        let response = try await perform(command, answerTime: answerTime)
        guard response.status == .success else { throw .status(response.status, of: command.code) }
        return response.body
    }

    private static func wholeSeconds(_ duration: Duration, in range: ClosedRange<Int>, what: String) throws(CardReaderError)
        -> Int
    {
        let (seconds, attoseconds) = duration.components
        let whole = Int(clamping: seconds) + (attoseconds > 0 ? 1 : 0)
        guard range.contains(whole) else {
            throw .invalidRequest("\(what) of \(duration) is outside \(range.lowerBound)…\(range.upperBound) s")
        }
        return whole
    }

    /// The same command with another Le (the answer to `6Cxx`).
    private static func resending(_ apdu: CommandAPDU, expectedLength: Int) throws(CardReaderError) -> CommandAPDU {
        do {
            return try CommandAPDU(
                cla: apdu.cla, ins: apdu.ins, p1: apdu.p1, p2: apdu.p2, data: apdu.data, expectedLength: expectedLength)
        } catch {
            throw .invalidRequest(error.description)
        }
    }

    private static func getResponse(expectedLength: Int) throws(CardReaderError) -> CommandAPDU {
        do {
            return try .getResponse(expectedLength: expectedLength)
        } catch {
            throw .invalidRequest(error.description)
        }
    }
}

/// How ``CardReader/transmit(_:options:)`` handles T=0's two-step answers.
public struct APDUExchangeOptions: Sendable, Hashable {
    /// On `61xx`, send GET RESPONSE (Le = xx) and join the data, until the card is done.
    public var followGetResponse: Bool
    /// On `6Cxx`, send the same command again with Le = xx.
    public var resendWithCorrectLength: Bool
    /// A bound on the exchanges one command may take, against a card that never stops.
    public var maximumExchanges: Int

    /// By default both two-step answers are followed, within 64 exchanges per command.
    public init(followGetResponse: Bool = true, resendWithCorrectLength: Bool = true, maximumExchanges: Int = 64) {
        self.followGetResponse = followGetResponse
        self.resendWithCorrectLength = resendWithCorrectLength
        self.maximumExchanges = maximumExchanges
    }

    /// Every exchange returned as the card answered it.
    public static let raw = APDUExchangeOptions(followGetResponse: false, resendWithCorrectLength: false)
}
