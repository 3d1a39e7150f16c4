import CardReaderKit
import Foundation
import FuzzSupport
import ReaderProtocol

/// Card files (`Fixtures/cards/*.json`, format 1) as `readerctl emulate --card` loads them:
/// JSON, the schema's field names, hex fields, tracks, ATR, AIDs, PDOL, records.
///
/// A card that loads has tracks and an ATR that parse, and records whose templates fit a
/// short READ RECORD answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCardFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        let card: EmulatedCard
        do throws(EmulatedCardFileError) {
            card = try EmulatedCard(json: Data(bytes), file: "fuzz.json")
        } catch {
            _ = error.description
            return
        }
        _ = card.description
        if let stripe = card.magneticStripe {
            check(stripe.track1.track != nil || stripe.rawTracks[0].count == 0, "a loaded track 1 does not parse")
            check(stripe.track2.track != nil || stripe.rawTracks[1].count == 0, "a loaded track 2 does not parse")
            check(stripe.track3.track != nil || stripe.rawTracks[2].count == 0, "a loaded track 3 does not parse")
        }
        guard let chip = card.chip else { return }
        check((try? AnswerToReset(bytes: chip.answerToReset)) != nil, "a loaded ATR does not parse")
        for application in chip.applications {
            _ = application.fileLocator.encoded()
            for record in application.records {
                check(record.template.count <= 256, "a record template longer than a READ RECORD answer")
            }
        }
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("card_file_main")
public func mainCardFile(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzCardFile) { fixtures in try fixtures.cardFiles() }
}
