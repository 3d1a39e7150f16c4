/// The chip slot as ICC STATUS reports it (`C2 04`).
public enum ICCSlotState: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// `00`: no card in the chip slot.
    case noCard = 0x00
    /// `01`: a card is inserted but not powered.
    case cardPresent = 0x01
    /// `02`: a card is inserted and powered (after ICC POWER ON).
    case cardPowered = 0x02

    /// A stable identifier for scripts: `no-card`, `card-present`, `card-powered`.
    public var identifier: String {
        switch self {
        case .noCard: "no-card"
        case .cardPresent: "card-present"
        case .cardPowered: "card-powered"
        }
    }

    /// The state in words: `no card`, `card present, not powered` or `card powered`.
    public var description: String {
        switch self {
        case .noCard: "no card"
        case .cardPresent: "card present, not powered"
        case .cardPowered: "card powered"
        }
    }
}
