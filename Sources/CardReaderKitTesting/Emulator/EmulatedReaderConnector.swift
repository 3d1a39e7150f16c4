import CardReaderCore
import ReaderProtocol

/// Opens in-process links to an ``EmulatedReader`` at a chosen ATT MTU: what
/// `readerctl --emulated` and tests connect CardReaderKit to.
///
/// ```swift
/// let clock = ManualClock()
/// let reader = EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: ["swipe-after=2"]), clock: clock)
/// let link = try await EmulatedReaderConnector(reader: reader, mtu: 247).connect()
/// ```
public struct EmulatedReaderConnector: ReaderConnector {
    /// The reader every link connects to (one link at a time).
    public let reader: EmulatedReader
    /// The ATT MTU the link negotiates: 23 (the default) up to 247.
    public let mtu: Int

    /// A connector to `reader` at ATT MTU `mtu`; an MTU outside 23…247 fails at ``connect()``.
    public init(reader: EmulatedReader, mtu: Int = 23) {
        self.reader = reader
        self.mtu = mtu
    }

    /// E.g. `emulated VPOS3356`.
    public var readerDescription: String { "emulated \(reader.configuration.info.model ?? "reader")" }

    /// Opens an ``EmulatedReaderLink``, after the scenario's connect delay and any restart;
    /// refused while another link to the reader is open.
    public func connect() async throws(LinkError) -> any ReaderLink {
        try await EmulatedReaderLink(reader: reader, mtu: mtu)
    }
}
