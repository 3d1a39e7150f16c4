/// A chip card's Answer To Reset (ISO/IEC 7816-3 §8.2), as ICC POWER ON returns it.
///
/// An ATR identifies the card type, not the cardholder, so it prints in full.
public struct AnswerToReset: Sendable, Hashable, CustomStringConvertible {
    /// The ATR as received.
    public let bytes: [UInt8]
    /// Transmission protocols the card offers (`T=0` when no TD byte names another).
    public let protocols: [Int]
    /// The historical bytes (T0's low nibble says how many).
    public let historicalBytes: [UInt8]

    /// Parses the interface bytes far enough to find the protocols and historical bytes.
    public init(bytes: [UInt8]) throws(MessageDecodingError) {
        guard bytes.count >= 2, bytes[0] == 0x3B || bytes[0] == 0x3F else {
            throw .malformedATR(reason: "TS must be 3B (direct) or 3F (inverse convention)")
        }
        var index = 1
        var indicator = bytes[1]
        let historicalCount = Int(indicator & 0x0F)
        var indicated: [Int] = []
        index += 1
        while true {
            for bit in [0x10, 0x20, 0x40] as [UInt8] where indicator & bit != 0 {
                index += 1
            }
            guard indicator & 0x80 != 0 else { break }
            guard index < bytes.count else { throw .malformedATR(reason: "interface bytes end early") }
            indicator = bytes[index]
            indicated.append(Int(indicator & 0x0F))
            index += 1
        }
        guard index + historicalCount <= bytes.count else {
            throw .malformedATR(reason: "\(historicalCount) historical bytes announced, fewer present")
        }
        let afterHistorical = index + historicalCount
        // TCK is absent only when T=0 alone is indicated (7816-3 §8.2.5); T=15 is not a
        // protocol but announces global interface bytes, and it does require TCK.
        let hasCheck = indicated.contains { $0 != 0 }
        guard bytes.count == afterHistorical + (hasCheck ? 1 : 0) else {
            throw .malformedATR(reason: "length \(bytes.count) does not match its interface bytes")
        }
        if hasCheck, bytes[1...].reduce(0, ^) != 0 {
            throw .malformedATR(reason: "TCK check byte does not verify")
        }
        self.bytes = bytes
        let protocols = Set(indicated.filter { $0 != 15 })
        self.protocols = protocols.isEmpty ? [0] : protocols.sorted()
        self.historicalBytes = Array(bytes[index..<afterHistorical])
    }

    /// The whole ATR in hex and its protocols, e.g. `ATR 3B 68 00 00 00 73 C8 40 13 00 90 00 (T=0)`.
    public var description: String {
        "ATR \(bytes.hexString) (\(protocols.map { "T=\($0)" }.joined(separator: ", ")))"
    }
}
