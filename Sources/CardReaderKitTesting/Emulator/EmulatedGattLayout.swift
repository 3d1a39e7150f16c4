import CardReaderCore

/// The GATT table an emulated reader's firmware serves. The services are always those of
/// the reader documentation (§1): the data service, Device Information and Battery. What
/// the firmware changes (this emulator's decisions, in Docs/link-security.md):
/// - from 3.0, the data service's TX subscription and RX writes need an encrypted link
///   (§1.1);
/// - from 3.2, the data service comes after Device Information and Battery, so its
///   handles move: a host bonded before an update to 3.2 holds a cached table that no
///   longer matches, as a real reader's table can change with its firmware.
public struct EmulatedGattLayout: Sendable, Hashable, CustomStringConvertible {
    /// The order of the services in the table.
    public enum ServiceOrder: Sendable, Hashable {
        /// Data service, Device Information, Battery (before 3.2).
        case dataServiceFirst
        /// Device Information, Battery, data service (from 3.2).
        case dataServiceLast
    }

    /// Whether TX and RX need an encrypted link.
    public var protectsDataService: Bool
    public var order: ServiceOrder

    /// The table of a reader running `firmwareRevision`; a missing or unreadable revision is
    /// taken for the newest table, as `LinkSecurityPolicy` takes it for 3.0 or later.
    public init(firmwareRevision: String?) {
        protectsDataService = LinkSecurityPolicy.requiresEncryption(firmwareRevision: firmwareRevision)
        let movesDataService = Self.majorMinor(of: firmwareRevision).map { $0 >= (3, 2) } ?? true
        order = movesDataService ? .dataServiceLast : .dataServiceFirst
    }

    public var description: String {
        let order = order == .dataServiceFirst ? "data service first" : "data service last"
        return "\(order), \(protectsDataService ? "encrypted" : "open") data service"
    }

    /// `(3, 2)` of `3.2.0` or `v3.2`, `(3, 0)` of `3`; nil when the revision does not begin
    /// with a version number.
    static func majorMinor(of revision: String?) -> (Int, Int)? {
        guard var text = revision?.drop(while: \.isWhitespace) else { return nil }
        if text.first == "v" || text.first == "V" { text = text.dropFirst() }
        let numbers = text.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }.split(separator: ".", omittingEmptySubsequences: false)
        guard let first = numbers.first, let major = Int(first) else { return nil }
        return (major, numbers.dropFirst().first.flatMap { Int($0) } ?? 0)
    }
}

extension EmulatedReader {
    /// The GATT table the running firmware serves: it changes when an update crosses 3.0
    /// or 3.2.
    public var gattLayout: EmulatedGattLayout { EmulatedGattLayout(firmwareRevision: firmwareVersion) }
}
