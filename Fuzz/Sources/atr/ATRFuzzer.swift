import FuzzSupport
import ReaderProtocol

/// The Answer To Reset of ICC POWER ON: interface bytes as T0 and each TDi announce them,
/// historical bytes, TCK.
///
/// An ATR that parses keeps its bytes, has as many historical bytes as T0 announces, and
/// offers at least one protocol, none of them T=15.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATR(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        guard let atr = try? AnswerToReset(bytes: bytes) else { return }
        check(atr.bytes == bytes, "the ATR does not keep its bytes")
        check(atr.historicalBytes.count == Int(bytes[1] & 0x0F), "historical bytes are not the ones T0 announces")
        check(!atr.protocols.isEmpty && !atr.protocols.contains(15), "protocols \(atr.protocols)")
        _ = atr.description
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("atr_main")
public func mainATR(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzATR) { fixtures in
        let cards = try fixtures.cards().compactMap(\.chip?.answerToReset)
        let responses = try fixtures.frames().filter { $0.frame.code == CommandCode(main: 0xC2, sub: 0x01) }
            .map { Array($0.frame.data.dropFirst()) }.filter { !$0.isEmpty }
        return cards + responses
    }
}
