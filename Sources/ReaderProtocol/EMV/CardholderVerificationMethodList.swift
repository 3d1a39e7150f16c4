/// The CVM List (tag `8E`, EMV Book 3 §10.5 and Annex C3): two amounts, then the rules the
/// terminal tries in order to verify the cardholder.
public struct CardholderVerificationMethodList: Sendable, Hashable {
    /// One rule: a method, when it applies, and what to do when it fails.
    public struct Rule: Sendable, Hashable {
        /// The method code (bits 6–1 of the rule's first byte).
        public let method: UInt8
        /// The condition code (the rule's second byte).
        public let condition: UInt8
        /// Bit 7: when the method is unsuccessful, try the next rule (otherwise cardholder
        /// verification fails).
        public let appliesNextRuleIfUnsuccessful: Bool

        /// The rule's two bytes.
        public init(bytes first: UInt8, _ second: UInt8) {
            method = first & 0x3F
            condition = second
            appliesNextRuleIfUnsuccessful = first & 0x40 != 0
        }

        /// The method by its name (Book 3 Table 39), e.g. `Enciphered PIN verified online`.
        public var methodName: String { Self.methodName(method) }

        /// The condition by its meaning (Book 3 Table 40), e.g. `If terminal supports the CVM`.
        public var conditionName: String { Self.conditionName(condition) }

        static func methodName(_ method: UInt8) -> String {
            switch method {
            case 0x00: "Fail CVM processing"
            case 0x01: "Plaintext PIN verification performed by ICC"
            case 0x02: "Enciphered PIN verified online"
            case 0x03: "Plaintext PIN verification performed by ICC and signature (paper)"
            case 0x04: "Enciphered PIN verification performed by ICC"
            case 0x05: "Enciphered PIN verification performed by ICC and signature (paper)"
            case 0x1E: "Signature (paper)"
            case 0x1F: "No CVM required"
            case 0x3F: "Not available for use (3F)"
            case 0x20...0x2F: "Payment system method \(method.hexByte)"
            case 0x30...0x3E: "Issuer method \(method.hexByte)"
            default: "RFU method \(method.hexByte)"
            }
        }

        static func conditionName(_ condition: UInt8) -> String {
            switch condition {
            case 0x00: "Always"
            case 0x01: "If unattended cash"
            case 0x02: "If not unattended cash and not manual cash and not purchase with cashback"
            case 0x03: "If terminal supports the CVM"
            case 0x04: "If manual cash"
            case 0x05: "If purchase with cashback"
            case 0x06: "If transaction is in the application currency and is under X value"
            case 0x07: "If transaction is in the application currency and is over X value"
            case 0x08: "If transaction is in the application currency and is under Y value"
            case 0x09: "If transaction is in the application currency and is over Y value"
            case 0x80...0xFF: "Payment system condition \(condition.hexByte)"
            default: "RFU condition \(condition.hexByte)"
            }
        }
    }

    /// Amount X, in the application currency's minor unit.
    public let amountX: UInt32
    /// Amount Y, in the application currency's minor unit.
    public let amountY: UInt32
    /// The rules, in the order the terminal tries them.
    public let rules: [Rule]

    /// Parses the value of `8E`: 4 bytes X, 4 bytes Y, then two bytes per rule. Nil when the
    /// length is not 8 plus an even number.
    public init?(parsing bytes: [UInt8]) {
        guard bytes.count >= 8, bytes.count % 2 == 0 else { return nil }
        func amount(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        amountX = amount(0)
        amountY = amount(4)
        rules = stride(from: 8, to: bytes.count, by: 2).map { Rule(bytes: bytes[$0], bytes[$0 + 1]) }
    }
}

extension CardholderVerificationMethodList.Rule: CustomStringConvertible {
    /// E.g. `Enciphered PIN verified online, If terminal supports the CVM; next rule if unsuccessful`.
    public var description: String {
        "\(methodName), \(conditionName)" + (appliesNextRuleIfUnsuccessful ? "; next rule if unsuccessful" : "")
    }
}
