import Testing
@testable import CardReaderCore
import ReaderProtocol

/// Found by the `emv-read` fuzz target: a card whose PDOL asks for 160 × 16 MB made the EMV
/// read allocate 2.7 GB of related data before GET PROCESSING OPTIONS refused it. The total
/// is now checked first.
@Suite struct EMVPDOLLimitTests {
    /// A card that answers SELECT PPSE with `6A82` and SELECT of the first common AID with an
    /// FCI holding `pdol`, then `6985` to anything else; the commands it got.
    private func read(pdol: [UInt8]) async -> (result: Result<EMVCard, CardReaderError>, commands: [UInt8]) {
        let commands = Commands()
        let fci = BERTLV(tag: EMVTag.fileControlInformationTemplate.tag, children: [BERTLV(tag: EMVTag.pdol.tag, value: pdol)])
        let reader = EMVApplicationReader(terminal: EMVTerminalData()) { command in
            switch await commands.append(command.ins) {
            case 1: ResponseAPDU(statusWord: StatusWord(0x6A82))
            case 2: ResponseAPDU(data: fci.encoded(), statusWord: .success)
            default: ResponseAPDU(statusWord: StatusWord(0x6985))
            }
        }
        let result: Result<EMVCard, CardReaderError>
        do throws(CardReaderError) {
            result = .success(try await reader.read())
        } catch {
            result = .failure(error)
        }
        return (result, await commands.instructions)
    }

    @Test func aPDOLAskingForGigabytesIsInvalidCardDataAndNothingIsSent() async {
        let entries = [UInt8]((0..<160).flatMap { _ in [0x9F, 0x02, 0x83, 0xFF, 0xFF, 0xFF] })
        let (result, commands) = await read(pdol: entries)
        guard case .failure(let error) = result, error.code == .invalidCardData, let reason = error.detail else {
            Issue.record("expected invalidCardData, got \(result)")
            return
        }
        #expect(reason.contains("2684354400 bytes"))
        #expect(commands == [0xA4, 0xA4], "GET PROCESSING OPTIONS must not be sent")
    }

    @Test func thePDOLLimitIsWhatAShortGetProcessingOptionsCarries() async {
        // 252 bytes: 83 81 FC and the data fill the 255 bytes of a short APDU; GPO goes out.
        let fits = await read(pdol: [0x9F, 0x02, 0x81, 0xFC])
        #expect(fits.commands == [0xA4, 0xA4, 0xA8])
        guard case .failure(let error) = fits.result, error.code == .cardRefused, let step = error.detail else {
            Issue.record("expected the card's refusal of GPO, got \(fits.result)")
            return
        }
        #expect(step == "GET PROCESSING OPTIONS")
        // One more byte cannot be sent.
        let tooLong = await read(pdol: [0x9F, 0x02, 0x81, 0xFD])
        #expect(tooLong.commands == [0xA4, 0xA4])
        guard case .failure(let error) = tooLong.result, error.code == .invalidCardData else {
            Issue.record("expected invalidCardData, got \(tooLong.result)")
            return
        }
    }
}

/// The instruction bytes of the commands a test card received, in order.
private actor Commands {
    private(set) var instructions: [UInt8] = []

    /// Records `instruction`; returns how many commands there have been.
    func append(_ instruction: UInt8) -> Int {
        instructions.append(instruction)
        return instructions.count
    }
}
