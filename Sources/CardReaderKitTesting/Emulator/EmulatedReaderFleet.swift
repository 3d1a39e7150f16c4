public import CardReaderCore
import DisabledLogging
public import Logging

/// Emulated readers driven as a fleet (`ReaderFleet`), without Bluetooth: what
/// `readerctl --emulated-fleet N` and tests of fleet code run on. Each member is its own
/// ``EmulatedReader``, known by its configuration's name (`VPOS3356-E001`, …), which its
/// connector's description, errors, metrics and logs carry.
///
/// Every member is in range at once: a scan answers at once with all of them, in order,
/// and a search finds a member by a prefix of its name. Connections are in-process links
/// at the fleet's MTU, as the installed lane's host (``EmulatedReaderConnector``).
///
/// ```swift
/// let fleet = EmulatedReaderFleet(count: 3)
/// let readers = try await fleet.scan(for: .seconds(1))
/// for outcome in await fleet.connectAll(readers) {
///     if case .success(let reader) = outcome.result { await reader.disconnect() }
/// }
/// ```
public struct EmulatedReaderFleet: ReaderFleet {
    /// A member: its name and the emulated reader behind it.
    public struct Member: Sendable, CustomStringConvertible {
        /// The name it goes by, e.g. `VPOS3356-E002`.
        public let name: String
        /// The emulated reader.
        public let reader: EmulatedReader
        /// The name.
        public var description: String { name }
    }

    /// The members, in order.
    public let members: [Member]
    /// The ATT MTU of every link, 23…247.
    public let mtu: Int
    /// Where the members' `CardReader`s log.
    public let logger: Logger

    /// A fleet of `readers`, each known by its configuration's name, linked at ATT MTU
    /// `mtu`. Readers without a name all go by `emulated VPOS3356`: a search by name finds
    /// only the first of them, and errors, metrics and logs cannot tell them apart.
    public init(readers: [EmulatedReader], mtu: Int = 23, logger: Logger = .disabled) {
        members = readers.map { Member(name: EmulatedReaderConnector(reader: $0).readerDescription, reader: $0) }
        self.mtu = mtu
        self.logger = logger
    }

    /// `count` readers (at least one) named ``memberName(_:)`` 1…`count`, each holding
    /// `card` under `scenario`, configured as `configuration` but for its name and serial
    /// number (`EMU00001`, `EMU00002`, …), reading time from `clock`.
    public init(
        count: Int, card: EmulatedCard? = .visaTest, scenario: EmulatorScenario = EmulatorScenario(),
        configuration: EmulatedReaderConfiguration = EmulatedReaderConfiguration(), mtu: Int = 23,
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger = .disabled
    ) {
        let readers = (1...max(1, count)).map { index in
            var configuration = configuration
            configuration.name = Self.memberName(index)
            configuration.info.serialNumber = "EMU" + Self.digits(index, width: 5)
            return EmulatedReader(card: card, scenario: scenario, configuration: configuration, clock: clock)
        }
        self.init(readers: readers, mtu: mtu, logger: logger)
    }

    /// The name of member `index` (from 1) of a fleet made by count: `VPOS3356-E001`, …
    public static func memberName(_ index: Int) -> String {
        "\(ReaderGATTProfile.localNamePrefix)3356-E" + digits(index, width: 3)
    }

    /// Every member, at once: emulated readers are always in range.
    public func scan(for duration: Duration) async throws(LinkError) -> [Member] { members }

    /// For each of `readers` (a prefix of a name), the first member that matches and that no
    /// earlier name took; names that match none are missing from the result.
    public func find(_ readers: [String], timeout: Duration) async throws(LinkError) -> [String: Member] {
        var found: [String: Member] = [:]
        var taken: Set<Int> = []
        for reader in readers where found[reader] == nil {
            guard let index = members.indices.first(where: { !taken.contains($0) && members[$0].name.hasPrefix(reader) })
            else { continue }
            taken.insert(index)
            found[reader] = members[index]
        }
        return found
    }

    /// A connector to `member`, as the installed lane's host, at the fleet's MTU. The link
    /// opens in-process and at once (unless a scenario delays it), so `timeout` is left to
    /// the reader's own connection deadline, which `connectAll` raises to `timeout` × the
    /// number of readers, as for a fleet whose set-ups take turns.
    public nonisolated func connector(for member: Member, timeout: Duration) -> EmulatedReaderConnector {
        EmulatedReaderConnector(reader: member.reader, mtu: mtu)
    }

    /// Nothing to end: each link closes with its `CardReader`'s `disconnect()`.
    public func close() async {}

    /// `value` in decimal, zero-padded to `width` digits.
    private static func digits(_ value: Int, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
