import FuzzSupport
import ReaderProtocol

/// Magnetic stripe data: the three LEN-prefixed tracks of a READ MAGNETIC STRIPE response,
/// and the input as each track, with their fields (PAN, name, expiry, service code).
///
/// A track that parses must parse again, equal, from its own encoding, and its descriptions
/// must not show the whole card number.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrackData(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        let raw = SensitiveBytes(bytes)
        if let track = try? Track1(parsing: raw) {
            check((try? Track1(parsing: track.encoded())) == track, "track 1 does not parse again from its encoding")
            checkMasked(track, track.primaryAccountNumber)
            _ = track.cardholderName.revealedComponents()
        }
        if let track = try? Track2(parsing: raw) {
            check((try? Track2(parsing: track.encoded())) == track, "track 2 does not parse again from its encoding")
            checkMasked(track, track.primaryAccountNumber)
        }
        if let track = try? Track3(parsing: raw) {
            check(track.characters == raw, "track 3 is not kept whole")
        }
        if let stripe = try? MagneticStripeData(fields: bytes) {
            check(stripe.fields == bytes, "the track list does not encode back to its bytes")
            _ = (stripe.track1, stripe.track2, stripe.track3, stripe.description)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if let number = try? PrimaryAccountNumber(text) { checkMasked(number, number) }
        _ = try? ExpiryDate(yymm: text)
        _ = (try? ServiceCode(text))?.description
        _ = (try? CardholderName(text))?.revealedComponents()
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("track_data_main")
public func mainTrackData(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzTrackData) { fixtures in
        let stripes = try fixtures.cards().compactMap(\.magneticStripe)
        let tracks = stripes.flatMap(\.rawTracks).map { $0.revealed() }.filter { !$0.isEmpty }
        let responses = try fixtures.frames().filter { $0.frame.code == CommandCode(main: 0xC1, sub: 0x07) }
            .map { Array($0.frame.data.dropFirst()) }
        return tracks + stripes.map(\.fields) + responses
    }
}

/// Neither description of `value` holds the whole card number.
private func checkMasked(_ value: some Any, _ number: PrimaryAccountNumber) {
    let digits = number.revealed()
    check(!String(describing: value).contains(digits), "a description shows the whole card number")
    check(!String(reflecting: value).contains(digits), "a debug description shows the whole card number")
}
