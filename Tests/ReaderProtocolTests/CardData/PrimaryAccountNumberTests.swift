import TestEnvironment
import Testing
@testable import ReaderProtocol

@Suite struct LuhnTests {
    /// The Luhn worked example 7992739871 → check digit 3, hand-computed per ISO/IEC 7812-1 Annex B:
    /// from the right, 1 7 8 9 3 7 2 9 9 7 with every first-from-right doubled gives 67, so 3 makes 70.
    @Test func checkDigitOfTheWorkedExample() {
        #expect(Luhn.checkDigit(for: "7992739871") == 3)
        #expect(Luhn.isValid("79927398713"))
        #expect(!Luhn.isValid("79927398710"))
    }

    /// Public test card numbers are Luhn-valid (ISO/IEC 7812-1). 4111111111111111 checked by hand:
    /// doubled digits (2nd, 4th, … from the right) give 7 × 2 + 4 × 2 = 22, the others 8 × 1, total 30.
    @Test func publicTestCardsPass() {
        for pan in ["4111111111111111", "5555555555554444", "378282246310005", "4000056655665556"] {
            #expect(Luhn.isValid(pan), "\(pan.prefix(6))")
        }
        #expect(Luhn.checkDigit(for: "411111111111111") == 1)
    }

    /// A single changed digit always breaks the Luhn check (ISO/IEC 7812-1 Annex B property).
    @Test func singleDigitErrorsFail() {
        #expect(!Luhn.isValid("4111111111111112"))
        #expect(!Luhn.isValid("4111111111111121"))
    }

    /// Hand-chosen malformed inputs: the check needs at least two ASCII digits.
    @Test func nonDigitsAndShortInputsFail() {
        #expect(!Luhn.isValid(""))
        #expect(!Luhn.isValid("0"))
        #expect(!Luhn.isValid("4111 1111 1111 1111"))
        #expect(Luhn.checkDigit(for: "") == nil)
        #expect(Luhn.checkDigit(for: "12a") == nil)
    }

    /// Property (ISO/IEC 7812-1 Annex B): appending the computed check digit always validates,
    /// and any other final digit does not.
    @Test func appendedCheckDigitValidates() {
        var generator = SeededGenerator(seed: 0x7812)
        for _ in 0..<500 {
            let payload = String((0..<Int.random(in: 1...18, using: &generator)).map { _ in
                Character(String(Int.random(in: 0...9, using: &generator)))
            })
            let check = Luhn.checkDigit(for: payload)
            #expect(check != nil)
            guard let check else { continue }
            #expect(Luhn.isValid(payload + String(check)))
            #expect(!Luhn.isValid(payload + String((check + 1) % 10)))
        }
    }
}

@Suite struct PrimaryAccountNumberTests {
    /// Lengths per ISO/IEC 7812-1 (8–19 digits); masks hand-written from the documented rule.
    @Test func masksFirstSixAndLastFourOfLongPANs() throws {
        #expect(try PrimaryAccountNumber("4111111111111111").masked == "411111******1111")
        #expect(try PrimaryAccountNumber("378282246310005").masked == "378282*****0005")
        #expect(try PrimaryAccountNumber("6011000990139424123").masked == "601100*********4123")
    }

    /// The documented short-PAN rule (always ≥ 5 hidden digits), hand-applied.
    @Test func masksShortPANsHarder() throws {
        #expect(try PrimaryAccountNumber("42222222222221").masked == "42222*****2221")
        #expect(try PrimaryAccountNumber("4222222222222").masked == "4222*****2222")
        #expect(try PrimaryAccountNumber("123456789012").masked == "123*****9012")
        #expect(try PrimaryAccountNumber("123456789").masked == "*****6789")
        #expect(try PrimaryAccountNumber("12345678").masked == "*****678")
    }

    /// Hand-read from the public test number 4000056655665556.
    @Test func exposesIssuerIdentificationNumberAndLastFour() throws {
        let pan = try PrimaryAccountNumber("4000056655665556")
        #expect(pan.issuerIdentificationNumber == "400005")
        #expect(pan.lastFour == "5556")
        #expect(pan.digitCount == 16)
        #expect(pan.revealed() == "4000056655665556")
        #expect(pan.passesLuhn)
    }

    /// A PAN failing Luhn is still a PAN (readers pass such numbers); only `passesLuhn` says so.
    @Test func luhnFailureIsNotAnError() throws {
        #expect(try !PrimaryAccountNumber("4111111111111112").passesLuhn)
    }

    /// ISO/IEC 7812-1: 8 to 19 digits; offsets hand-counted.
    @Test func rejectsWrongLengthsAndNonDigits() {
        #expect(throws: PrimaryAccountNumberError.invalidLength(7)) { try PrimaryAccountNumber("4111111") }
        #expect(throws: PrimaryAccountNumberError.invalidLength(20)) { try PrimaryAccountNumber("41111111111111111111") }
        #expect(throws: PrimaryAccountNumberError.invalidLength(0)) { try PrimaryAccountNumber("") }
        #expect(throws: PrimaryAccountNumberError.nonDigit(offset: 4)) { try PrimaryAccountNumber("4111 1111 1111 1111") }
    }

    /// Redaction: no rendering holds the digits; every one holds the mask.

    @Test func renderingsNeverShowTheFullNumber() throws {
        for number in ["4111111111111111", "5555555555554444", "378282246310005", "12345678"] {
            let pan = try PrimaryAccountNumber(number)
            #expect(!anyRendering(of: pan, contains: [number]))
            #expect(renderings(of: pan).allSatisfy { $0.contains(pan.masked) })
        }
    }

    /// Redaction: the error names a position, not the character; wording hand-written.

    @Test func errorDescriptionsCarryNoDigits() {
        let error = PrimaryAccountNumberError.nonDigit(offset: 4)
        #expect(error.description == "PAN character at offset 4 is not a decimal digit")
    }
}
