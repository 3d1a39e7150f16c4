import CardReaderCore
import ReaderProtocol

/// Opens in-process links to an ``EmulatedReader`` at a chosen ATT MTU, as a host
/// (``EmulatedHost``): what `readerctl --emulated` and tests connect CardReaderKit to.
///
/// It decides as every connector does (`LinkSecurityPolicy`): from the firmware revision
/// and whether its host holds a bond, before it touches the data service. By default the
/// host is the installed lane's, which the reader keeps a bond with, so the link is
/// encrypted; a host made with ``EmulatedHost/init(address:)`` must ``pair(_:)`` first.
///
/// ```swift
/// let clock = ManualClock()
/// let reader = EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: ["swipe-after=2"]), clock: clock)
/// let link = try await EmulatedReaderConnector(reader: reader, mtu: 247).connect()
/// ```
public struct EmulatedReaderConnector: PairingReaderConnector {
    /// The reader every link connects to (one link at a time).
    public let reader: EmulatedReader
    /// The ATT MTU the link negotiates: 23 (the default) up to 247.
    public let mtu: Int
    /// The host this connector is: its address and bonds.
    public let host: EmulatedHost
    /// Whether an attempt made while the reader is silent (restarting after an update or
    /// its scheduled reset) waits for it, as BlueZ's `Device1.Connect` waits for a device
    /// to advertise (true, the default), or is refused at once.
    public let waitsForASilentReader: Bool

    /// A connector to `reader` at ATT MTU `mtu`, as `host` (nil: the installed lane's host,
    /// ``EmulatedHost/init(installedWith:)``); an MTU outside 23…247 fails at ``connect()``.
    public init(reader: EmulatedReader, mtu: Int = 23, host: EmulatedHost? = nil, waitsForASilentReader: Bool = true) {
        self.reader = reader
        self.mtu = mtu
        self.host = host ?? EmulatedHost(installedWith: reader)
        self.waitsForASilentReader = waitsForASilentReader
    }

    /// The reader's name (``EmulatedReaderConfiguration/name``, e.g. `VPOS3356-E001`), or
    /// `emulated VPOS3356` for a reader without one.
    public var readerDescription: String {
        reader.configuration.name ?? "emulated \(reader.configuration.info.model ?? "reader")"
    }

    /// Opens an ``EmulatedReaderLink``, after the scenario's connect delay and any restart:
    /// encrypted when the host holds a bond, unencrypted to a reader before firmware 3.0 that
    /// it never bonded with; refused (`LinkError.Code.notPaired`) to a reader from 3.0
    /// without a bond, and while another link to the reader is open.
    public func connect() async throws(LinkError) -> any ReaderLink {
        if waitsForASilentReader {
            do {
                try await reader.waitUntilRunning()
            } catch {
                throw LinkError(.cancelled, "the connection attempt was cancelled")
            }
        }
        let decision = LinkSecurityPolicy.decide(
            firmwareRevision: await reader.firmwareVersion, hostHoldsBond: await host.holdsBond(with: reader))
        switch decision {
        case .needsPairing: throw LinkError.notPaired(readerDescription)
        case .encryptWithBond:
            return try await EmulatedReaderLink(
                reader: reader, mtu: mtu, encryptingAs: host, waitingForASilentReader: waitsForASilentReader)
        case .openUnencrypted:
            return try await EmulatedReaderLink(reader: reader, mtu: mtu, waitingForASilentReader: waitsForASilentReader)
        }
    }

    /// Whether the host holds a bond with the reader.
    public func holdsBond() async -> Bool { await host.holdsBond(with: reader) }

    /// Pairs the host with the reader, within `request.timeout` on the reader's clock:
    /// Just Works, or Passkey Entry with the digits `request.passkey` gives within its time
    /// limit. The reader must be in pairing mode.
    public func pair(_ request: PairingRequest) async throws(PairingError) -> PairingOutcome {
        if await host.holdsBond(with: reader) { return .alreadyBonded }
        let pairing = EmulatedPairing(reader: reader, host: host, request: request, readerDescription: readerDescription)
        return try await pairing.run()
    }

    /// Deletes the host's bond with the reader, and says whether there was one; the reader
    /// keeps its side.
    @discardableResult
    public func unpair() async -> Bool {
        await host.forgetBond(with: reader)
    }
}
