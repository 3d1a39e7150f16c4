import ReaderProtocol

/// A chip card's answers as it speaks them over T=0 (ISO/IEC 7816-3 §10.3, 7816-4 §5.1.3):
/// the reader passes these through untouched; GET RESPONSE and re-sends are the host's job.
///
/// - A command with data (cases 3 and 4, e.g. SELECT, GET PROCESSING OPTIONS) whose answer
///   has data gets `61xx` (`xx` = its length, `00` for 256 or more); the data waits for GET
///   RESPONSE.
/// - GET RESPONSE (`00 C0 00 00 Le`) returns Le bytes: `9000` when nothing is left, else
///   `61yy` for the rest. Le above what waits → `6Cxx` with the exact length (nothing is
///   lost). Nothing waiting → `6985`. Any other command discards what waits.
/// - A command without data (cases 1 and 2, e.g. READ RECORD) whose answer has data returns
///   it with `9000` only when Le equals its length (Le `00` = 256); otherwise `6Cxx`, no data.
/// - Answers without data (errors) are returned as they are.
struct T0CardChannel: Sendable {
    private var application: EMVCardApplication
    /// Response data waiting for GET RESPONSE.
    private var waiting: SensitiveBytes?

    init(chip: EmulatedCard.Chip) {
        application = EMVCardApplication(chip: chip)
    }

    mutating func transmit(_ command: CommandAPDU) -> ResponseAPDU {
        if command.ins == 0xC0 {
            guard command.cla == 0x00 else { return ResponseAPDU(statusWord: StatusWord(0x6E00)) }
            return getResponse(command)
        }
        waiting = nil
        let response = application.respond(to: command)
        guard !response.data.isEmpty else { return response }
        switch command.isoCase {
        case .case3, .case4:
            waiting = response.data
            return ResponseAPDU(statusWord: Self.moreData(response.data.count))
        case .case1, .case2:
            guard command.expectedLength == response.data.count else {
                return ResponseAPDU(statusWord: Self.wrongLength(response.data.count))
            }
            return response
        }
    }

    private mutating func getResponse(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.p1 == 0x00, command.p2 == 0x00 else { return ResponseAPDU(statusWord: StatusWord(0x6A86)) }
        guard let data = waiting else { return ResponseAPDU(statusWord: StatusWord(0x6985)) }
        let requested = command.expectedLength ?? 256
        guard requested <= data.count else { return ResponseAPDU(statusWord: Self.wrongLength(data.count)) }
        let (head, rest) = data.withUnsafeBytes { bytes in
            (SensitiveBytes(bytes[..<requested]), SensitiveBytes(bytes[requested...]))
        }
        guard !rest.isEmpty else {
            waiting = nil
            return ResponseAPDU(data: head, statusWord: .success)
        }
        waiting = rest
        return ResponseAPDU(data: head, statusWord: Self.moreData(rest.count))
    }

    /// `61xx`; `xx` = `00` stands for 256 or more.
    private static func moreData(_ count: Int) -> StatusWord {
        StatusWord(sw1: 0x61, sw2: count >= 256 ? 0 : UInt8(count))
    }

    /// `6Cxx` with the exact length; `00` stands for 256.
    private static func wrongLength(_ count: Int) -> StatusWord {
        StatusWord(sw1: 0x6C, sw2: UInt8(truncatingIfNeeded: count))
    }
}
