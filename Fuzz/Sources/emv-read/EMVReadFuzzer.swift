import Dispatch
import FuzzSupport
import ReaderProtocol
@testable import CardReaderKit

/// The EMV read flow (SELECT PPSE, choose and SELECT the application, GET PROCESSING OPTIONS
/// with the PDOL filled in, READ RECORD for each record the AFL names, then the card's data
/// from the records) against a card whose every answer comes from the input.
///
/// Input: answers, each a length (2 bytes, mod 1023), that many data bytes, and SW1 SW2.
/// Once the input ends the card answers `6A82` (not found) to everything.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEMVRead(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        let answers = Shared(FuzzInput(bytes))
        let reader = EMVApplicationReader(terminal: terminal) { _ in
            answers.withLock { input in
                guard !input.isAtEnd else { return ResponseAPDU(statusWord: StatusWord(0x6A82)) }
                let data = input.bytes(input.int(in: 0...1022))
                return ResponseAPDU(data: SensitiveBytes(data), statusWord: StatusWord(sw1: input.byte(), sw2: input.byte()))
            }
        }
        if let card = runBlocking({ try? await reader.read() }) {
            _ = card.description
            _ = card.primaryAccountNumber.description
        }
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("emv_read_main")
public func mainEMVRead(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzEMVRead) { fixtures in
        // Each chip card's answers to a whole read, from the emulator's card application.
        try fixtures.cards().compactMap(\.chip).map { chip in
            let card = Shared((application: EMVCardApplication(chip: chip), answers: [UInt8]()))
            let reader = EMVApplicationReader(terminal: terminal) { command in
                card.withLock { card in
                    let answer = card.application.respond(to: command)
                    let data = answer.data.revealed()
                    card.answers += [UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
                        + [answer.statusWord.sw1, answer.statusWord.sw2]
                    return answer
                }
            }
            _ = runBlocking { try? await reader.read() }
            return card.withLock { $0.answers }
        }
    }
}

/// Fixed terminal data, so that a run depends on its input alone.
private let terminal: EMVTerminalData = {
    var terminal = EMVTerminalData()
    terminal.unpredictableNumber = [0x12, 0x34, 0x56, 0x78]
    return terminal
}()

/// Runs `body` to its end. It starts on this thread (`Task.immediate`) and, as the card answers
/// at once, it normally ends there too, so every allocation of the run is freed within it
/// (libFuzzer runs a full leak scan after any input that leaves memory allocated). If it
/// does suspend, this waits for it.
private func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Shared<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.immediate {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = result.withLock({ $0 }) else { fatalError("the task ended without a result") }
    return value
}
