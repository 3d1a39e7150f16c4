/// Card numbers published for testing: the built-in emulated cards' and those the card
/// schemes and payment processors list for test environments (Visa's EMV test card
/// 4761 7390 0101 0010, Stripe's and Braintree's published lists). No real account has them.
public enum TestCardNumbers {
    /// Whether `pan` is a published test card number.
    public static func contains(_ pan: PrimaryAccountNumber) -> Bool {
        numbers.contains { pan.digits == SensitiveBytes($0.utf8) }
    }

    /// The numbers, for documentation and tools.
    public static let numbers = [
        // Visa
        "4111111111111111", "4012888888881881", "4222222222222", "4761739001010010", "4242424242424242",
        "4000056655665556",
        // Mastercard
        "5555555555554444", "5105105105105100", "5454545454545454", "2223000048400011", "2223003122003222",
        // American Express
        "378282246310005", "371449635398431", "378734493671000",
        // Discover, Diners Club, JCB, UnionPay
        "6011111111111117", "6011000990139424", "30569309025904", "38520000023237", "3530111333300000",
        "3566002020360505", "6200000000000005",
    ]
}
