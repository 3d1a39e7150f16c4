/// The chip slot as ICC STATUS reports it (`C2 04`).
public enum ICCSlotState: UInt8, Sendable, Hashable, CustomStringConvertible {
    case noCard = 0x00
    case cardPresent = 0x01
    case cardPowered = 0x02

    /// A stable identifier for scripts: `no-card`, `card-present`, `card-powered`.
    public var identifier: String {
        switch self {
        case .noCard: "no-card"
        case .cardPresent: "card-present"
        case .cardPowered: "card-powered"
        }
    }

    public var description: String {
        switch self {
        case .noCard: "no card"
        case .cardPresent: "card present, not powered"
        case .cardPowered: "card powered"
        }
    }
}
