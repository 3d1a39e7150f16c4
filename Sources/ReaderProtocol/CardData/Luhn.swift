/// The Luhn (mod 10) check of ISO/IEC 7812-1 Annex B.
public enum Luhn {
    /// Whether `digits` (ASCII `0`–`9` only, at least 2 of them) end in a valid Luhn check digit.
    public static func isValid(_ digits: some StringProtocol) -> Bool {
        isValid(asciiDigits: digits.utf8)
    }

    /// The check digit (0–9) that makes `payload` followed by it pass the check,
    /// or `nil` if `payload` is empty or holds anything but ASCII digits.
    public static func checkDigit(for payload: some StringProtocol) -> Int? {
        guard let sum = weightedSum(payload.utf8, doublingRightmost: true) else { return nil }
        return (10 - sum % 10) % 10
    }

    /// ``isValid(_:)`` over ASCII digit bytes.
    static func isValid(asciiDigits: some Collection<UInt8>) -> Bool {
        guard asciiDigits.count >= 2,
            let sum = weightedSum(asciiDigits, doublingRightmost: false)
        else { return false }
        return sum % 10 == 0
    }

    /// The Luhn sum, doubling every second digit counted from the right (starting with the
    /// rightmost when `doublingRightmost`); `nil` on an empty input or a non-digit.
    private static func weightedSum(_ asciiDigits: some Collection<UInt8>, doublingRightmost: Bool) -> Int? {
        guard !asciiDigits.isEmpty else { return nil }
        var sum = 0
        // Walking left to right: the leftmost digit is n − 1 places from the right, so it is
        // doubled when that distance is odd (or even, when the rightmost digit is doubled).
        var doubling = (asciiDigits.count % 2 == 0) != doublingRightmost
        for byte in asciiDigits {
            guard let digit = byte.asciiDigitValue else { return nil }
            sum += doubling ? (digit < 5 ? digit * 2 : digit * 2 - 9) : digit
            doubling.toggle()
        }
        return sum
    }
}
