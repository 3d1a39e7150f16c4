public import Logging

/// Several readers driven from one process — a shop's lanes — found and connected in terms
/// of readers. What carries their links is the conforming type's business: BlueZ on one
/// adapter (`BlueZReaderFleet`, in `CardReaderKit`), or anything else that can make a
/// ``ReaderConnector`` for a reader it found.
///
/// Every reader gets its own ``CardReader`` (link, decoder, state), so one reader's failure
/// or disconnect never disturbs another's traffic.
public protocol ReaderFleet: Sendable {
    /// A reader as the fleet found it: what to connect to, e.g. `VPOS3356-1A2B (AA:BB:CC:DD:EE:FF)`.
    associatedtype Found: Sendable & CustomStringConvertible
    /// What the fleet makes for each reader it connects to.
    associatedtype Connector: ReaderConnector

    /// Every reader in range within `duration`, in the order first seen.
    func scan(for duration: Duration) async throws(LinkError) -> [Found]

    /// The readers named by `readers` (name prefixes or addresses), each the first that
    /// matches, looking until every one is found or `timeout` passes. Readers not found are
    /// missing from the result.
    func find(_ readers: [String], timeout: Duration) async throws(LinkError) -> [String: Found]

    /// A connector to `reader`, for a ``CardReader``, whose connection set-up has `timeout`.
    nonisolated func connector(for reader: Found, timeout: Duration) -> Connector

    /// Where the fleet's readers log.
    nonisolated var logger: Logger { get }

    /// Ends the fleet; links still open through it drop.
    func close() async
}
