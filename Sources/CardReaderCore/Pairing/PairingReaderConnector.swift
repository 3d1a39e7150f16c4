/// A connector that can also pair this host with its reader, and forget the bond: what a
/// backend uses at a lane's first install and when a reader is replaced.
///
/// ```swift
/// let outcome = try await connector.pair(PairingRequest(passkey: { prompt in await askCashier(prompt) }))
/// ```
public protocol PairingReaderConnector: ReaderConnector {
    /// Whether this host holds a bond with the reader now.
    func holdsBond() async throws(PairingError) -> Bool

    /// Pairs with the reader and bonds, within the request's timeout: the reader must be in
    /// pairing mode. Does nothing to a reader this host already holds a bond with
    /// (``PairingOutcome/alreadyBonded``). No other pairing runs at the same time on the
    /// same adapter.
    func pair(_ request: PairingRequest) async throws(PairingError) -> PairingOutcome

    /// Deletes this host's bond with the reader, and says whether there was one. The
    /// reader keeps its side until it is told to forget: pairing again needs pairing mode.
    @discardableResult
    func unpair() async throws(PairingError) -> Bool
}
