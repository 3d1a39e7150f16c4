public import FoundationEssentials

/// One bond this host made with a reader, as ``ReaderBondStore`` keeps it: BlueZ keeps the
/// keys, but not when or how the pairing happened.
public struct ReaderBond: Sendable, Hashable, Codable {
    /// The reader's address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// Its advertised name when it was paired, e.g. `VPOS3356-1A2B`.
    public var name: String?
    /// The adapter the bond is on, e.g. `hci1`.
    public var adapter: String
    /// When the pairing completed.
    public var pairedAt: Date
    /// `Just Works` or `Passkey Entry`.
    public var method: String

    /// A bond with the reader at `address`, made on `adapter` at `pairedAt` by `method`.
    public init(address: String, name: String?, adapter: String, pairedAt: Date, method: PairingMethod) {
        self.address = address.uppercased()
        self.name = name
        self.adapter = adapter
        self.pairedAt = pairedAt
        self.method = "\(method)"
    }
}
