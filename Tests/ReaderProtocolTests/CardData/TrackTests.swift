import TestEnvironment
import Testing
@testable import ReaderProtocol

/// The reader documentation's worked example (test card 4111 1111 1111 1111); its lengths
/// 0x33 and 0x27 in the documented READ MAGNETIC STRIPE response match these strings.
private let documentedTrack1 = "%B4111111111111111^DOE/JOHN^2512101000000000000000?"
private let documentedTrack2 = ";4111111111111111=25121010000000000000?"

@Suite struct Track1Tests {
    /// Fields hand-split per ISO/IEC 7813 format B from the reader documentation's example.
    @Test func parsesTheDocumentedExample() throws {
        let track = try Track1(parsing: documentedTrack1)
        #expect(track.primaryAccountNumber.revealed() == "4111111111111111")
        #expect(track.cardholderName.revealed() == "DOE/JOHN")
        #expect(track.expiry == (try ExpiryDate(year: 2025, month: 12)))
        #expect(track.serviceCode == (try ServiceCode("101")))
        #expect(track.discretionaryData.revealed() == Array("000000000000000".utf8))
        #expect(track.passesLuhn)
        #expect(track.revealed() == documentedTrack1)
        #expect(documentedTrack1.utf8.count == 0x33)
    }

    /// ISO/IEC 7813: a lone separator marks an absent expiry or service code.
    @Test func absentExpiryAndServiceCode() throws {
        let track = try Track1(parsing: "%B4111111111111111^DOE/JOHN^^^123?")
        #expect(track.expiry == nil)
        #expect(track.serviceCode == nil)
        #expect(track.discretionaryData.revealed() == Array("123".utf8))
        let onlyServiceCode = try Track1(parsing: "%B4111111111111111^DOE/JOHN^^201?")
        #expect(onlyServiceCode.expiry == nil)
        #expect(onlyServiceCode.serviceCode == (try ServiceCode("201")))
        #expect(onlyServiceCode.discretionaryData.isEmpty)
    }

    /// Per the brief and ISO/IEC 7813: a Luhn failure is not a format error (last digit changed by hand).

    @Test func luhnFailureStillParses() throws {
        #expect(try !Track1(parsing: "%B4111111111111112^DOE/JOHN^2512101?").passesLuhn)
    }

    /// Each malformation of ISO/IEC 7813 format B; offsets hand-counted from the start sentinel.
    @Test(arguments: [
        ("B4111111111111111^DOE/JOHN^2512101?", MagneticTrackError.Problem.missingStartSentinel),
        ("%B4111111111111111^DOE/JOHN^2512101", .missingEndSentinel),
        ("%B4111111111111111^DOE/JOHN^2512101?X", .dataAfterEndSentinel(offset: 36)),
        ("%A4111111111111111^DOE/JOHN^2512101?", .unsupportedFormatCode),
        ("%B4111111^DOE/JOHN^2512101?", .invalidPANLength(7)),
        ("%B41111111111X1111^DOE/JOHN^2512101?", .nonDigitInPAN(offset: 13)),
        ("%B4111111111111111DOE/JOHN2512101?", .missingSeparator(after: .primaryAccountNumber)),
        ("%B4111111111111111^DOE/JOHN?", .missingSeparator(after: .cardholderName)),
        ("%B4111111111111111^DOE/JOHN^2513101?", .invalidExpiry(offset: 28)),
        ("%B4111111111111111^DOE/JOHN^25?", .invalidExpiry(offset: 28)),
        ("%B4111111111111111^DOE/JOHN^25121A1?", .invalidServiceCode(offset: 32)),
        ("%B4111111111111111^D^2512101?", .invalidNameLength(1)),
        ("%B4111111111111111^ABCDEFGHIJKLMNOPQRSTUVWXYZA^2512101?", .invalidNameLength(27)),
        ("%B4111111111111111^Doe/JOHN^2512101?", .illegalCharacter(offset: 20, field: .cardholderName)),
        ("%B4111111111111111^DOE/JOHN^2512101ab?", .illegalCharacter(offset: 35, field: .discretionaryData)),
        ("%B4111111111111111^DOE/JOHN^2512101" + String(repeating: "0", count: 43) + "?", .tooLong(length: 79, maximum: 78)),
    ])
    func rejectsMalformedTracks(track: String, problem: MagneticTrackError.Problem) {
        #expect(throws: MagneticTrackError(track: 1, problem: problem)) { try Track1(parsing: track) }
    }

    /// Redaction: errors name offsets, not contents; wording hand-written.

    @Test func errorDescriptionsNameOffsetsNotContents() {
        let error = MagneticTrackError(track: 1, problem: .invalidExpiry(offset: 28))
        #expect(error.description == "track 1 expiry at offset 28 is neither YYMM with month 01–12 nor a separator")
    }

    /// Redaction: no rendering holds the track, PAN, name, expiry or discretionary data.

    @Test func renderingsHidePANNameAndTrack() throws {
        let track = try Track1(parsing: documentedTrack1)
        #expect(!anyRendering(of: track, contains: [documentedTrack1, "4111111111111111", "DOE", "JOHN", "2512", "000000000000000"]))
        #expect(track.description.contains("411111******1111"))
    }

    /// Property: any fields within ISO/IEC 7813 limits encode to the format-B layout (assembled
    /// here independently) and parse back to the same fields.
    @Test func roundTripsRandomTracks() throws {
        var generator = SeededGenerator(seed: 0x7813_0001)
        let nameCharacters = Array(" ABCDEFGHIJKLMNOPQRSTUVWXYZ/.0123456789-")
        let dataCharacters = Array(" ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789^/.")
        for _ in 0..<500 {
            let panDigits = randomDigits(Int.random(in: 8...19, using: &generator), using: &generator)
            let name = String((0..<Int.random(in: 2...26, using: &generator)).map { _ in
                nameCharacters.randomElement(using: &generator) ?? "A"
            })
            let expiry = Bool.random(using: &generator)
                ? try ExpiryDate(year: Int.random(in: 2000...2099, using: &generator), month: Int.random(in: 1...12, using: &generator))
                : nil
            let serviceCode = Bool.random(using: &generator) ? try ServiceCode(randomDigits(3, using: &generator)) : nil
            let used = 2 + panDigits.count + 1 + name.count + 1 + (expiry == nil ? 1 : 4) + (serviceCode == nil ? 1 : 3) + 1
            let discretionary = String((0..<Int.random(in: 0...(Track1.maximumLength - used), using: &generator)).map { _ in
                dataCharacters.randomElement(using: &generator) ?? "0"
            })
            let expected = "%B\(panDigits)^\(name)^\(expiry?.yymm ?? "^")\(serviceCode?.description ?? "^")\(discretionary)?"

            let built = try Track1(
                primaryAccountNumber: PrimaryAccountNumber(panDigits), cardholderName: CardholderName(name),
                expiry: expiry, serviceCode: serviceCode, discretionaryData: SensitiveBytes(discretionary.utf8))
            #expect(built.revealed() == expected)
            #expect(try Track1(parsing: expected) == built)
        }
    }
}

@Suite struct Track2Tests {
    /// Fields hand-split per ISO/IEC 7813 track 2 from the reader documentation's example.
    @Test func parsesTheDocumentedExample() throws {
        let track = try Track2(parsing: documentedTrack2)
        #expect(track.primaryAccountNumber.revealed() == "4111111111111111")
        #expect(track.expiry == (try ExpiryDate(year: 2025, month: 12)))
        #expect(track.serviceCode == (try ServiceCode("101")))
        #expect(track.discretionaryData.revealed() == Array("0000000000000".utf8))
        #expect(track.revealed() == documentedTrack2)
        #expect(documentedTrack2.utf8.count == 0x27)
    }

    @Test func parsesFromBytesWithAbsentFields() throws {
        // Separator after the PAN, then one lone separator each for expiry and service code.
        let track = try Track2(parsing: SensitiveBytes(";5555555555554444===?".utf8))
        #expect(track.expiry == nil)
        #expect(track.serviceCode == nil)
        #expect(track.discretionaryData.isEmpty)
        #expect(track.primaryAccountNumber.lastFour == "4444")
    }

    /// Each malformation of ISO/IEC 7813 track 2; offsets hand-counted from the start sentinel.
    @Test(arguments: [
        ("4111111111111111=2512101?", MagneticTrackError.Problem.missingStartSentinel),
        ("%4111111111111111=2512101?", .missingStartSentinel),
        (";4111111111111111=2512101", .missingEndSentinel),
        (";4111111111111111=2512101?1", .dataAfterEndSentinel(offset: 26)),
        (";41111111111111111111=2512101?", .invalidPANLength(20)),
        (";411111111111111D=2512101?", .nonDigitInPAN(offset: 16)),
        (";4111111111111111?", .missingSeparator(after: .primaryAccountNumber)),
        (";4111111111111111=2500101?", .invalidExpiry(offset: 18)),
        (";4111111111111111=25121?", .invalidServiceCode(offset: 22)),
        (";4111111111111111=2512101A?", .illegalCharacter(offset: 25, field: .discretionaryData)),
        (";4111111111111111=25121010000000000000000?", .tooLong(length: 42, maximum: 39)),
    ])
    func rejectsMalformedTracks(track: String, problem: MagneticTrackError.Problem) {
        #expect(throws: MagneticTrackError(track: 2, problem: problem)) { try Track2(parsing: track) }
    }

    /// Redaction: no rendering holds the track, PAN, expiry or discretionary data.

    @Test func renderingsHidePANAndTrack() throws {
        let track = try Track2(parsing: documentedTrack2)
        #expect(!anyRendering(of: track, contains: [documentedTrack2, "4111111111111111", "2512", "0000000000000"]))
        #expect(String(describing: track).contains("411111******1111"))
    }

    /// Property: any fields within ISO/IEC 7813 limits encode to `;PAN=…?` (assembled here
    /// independently) and parse back to the same fields.
    @Test func roundTripsRandomTracks() throws {
        var generator = SeededGenerator(seed: 0x7813_0002)
        let dataCharacters = Array("0123456789:<=>")
        for _ in 0..<500 {
            let panDigits = randomDigits(Int.random(in: 8...19, using: &generator), using: &generator)
            let expiry = Bool.random(using: &generator)
                ? try ExpiryDate(year: Int.random(in: 2000...2099, using: &generator), month: Int.random(in: 1...12, using: &generator))
                : nil
            let serviceCode = Bool.random(using: &generator) ? try ServiceCode(randomDigits(3, using: &generator)) : nil
            let used = 1 + panDigits.count + 1 + (expiry == nil ? 1 : 4) + (serviceCode == nil ? 1 : 3) + 1
            let discretionary = String((0..<Int.random(in: 0...(Track2.maximumLength - used), using: &generator)).map { _ in
                dataCharacters.randomElement(using: &generator) ?? "0"
            })
            let expected = ";\(panDigits)=\(expiry?.yymm ?? "=")\(serviceCode?.description ?? "=")\(discretionary)?"

            let built = try Track2(
                primaryAccountNumber: PrimaryAccountNumber(panDigits), expiry: expiry, serviceCode: serviceCode,
                discretionaryData: SensitiveBytes(discretionary.utf8))
            #expect(built.revealed() == expected)
            #expect(try Track2(parsing: expected) == built)
        }
    }
}

@Suite struct Track3Tests {
    /// ISO/IEC 4909 framing: `;` data `?`, characters 0x30–0x3F.
    @Test func keepsTheWholeTrack() throws {
        let text = ";011234567890123445=724724100000000000030300001000000000000000000=1=?"
        let track = try Track3(parsing: text)
        #expect(track.revealed() == text)
        #expect(!anyRendering(of: track, contains: [text, "0112345678901234"]))
    }

    /// ISO/IEC 4909 framing and length (107 with LRC); offsets hand-counted.

    @Test func rejectsMalformedTracks() {
        #expect(throws: MagneticTrackError(track: 3, problem: .missingStartSentinel)) { try Track3(parsing: "%123?") }
        #expect(throws: MagneticTrackError(track: 3, problem: .missingEndSentinel)) { try Track3(parsing: ";123") }
        #expect(throws: MagneticTrackError(track: 3, problem: .illegalCharacter(offset: 3, field: .data))) {
            try Track3(parsing: ";12A?")
        }
        #expect(throws: MagneticTrackError(track: 3, problem: .tooLong(length: 107, maximum: 106))) {
            try Track3(parsing: ";" + String(repeating: "1", count: 105) + "?")
        }
    }
}

/// `count` random ASCII digits.
func randomDigits(_ count: Int, using generator: inout SeededGenerator) -> String {
    String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
}
