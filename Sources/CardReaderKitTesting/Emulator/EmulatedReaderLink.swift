import CardReaderCore
import ReaderProtocol

/// An in-process `ReaderLink` to an ``EmulatedReader``: what BlueZ would carry, without
/// Bluetooth. Writes longer than MTU − 3 are refused (as BlueZ refuses a write without
/// response), and every write fails once the link is closed or the reader dropped it.
public actor EmulatedReaderLink: ReaderLink {
    /// The largest packet: ATT MTU − 3.
    public nonisolated let maximumWriteLength: Int
    /// The emulated reader's notifications, each at most ``maximumWriteLength`` bytes, then
    /// one `LinkInbound.dropped(_:)` if the reader drops the link (idle timeout, scenario,
    /// restart).
    public nonisolated let inbound: AsyncStream<LinkInbound>

    private let reader: EmulatedReader
    private let connectionID: Int
    private var closed = false

    /// Connects to `reader` at ATT MTU `mtu` (23…247).
    public init(reader: EmulatedReader, mtu: Int = 23) async throws(LinkError) {
        guard (23...247).contains(mtu) else { throw LinkError(.invalidMTU, "the ATT MTU must be 23…247") }
        do {
            // A reader restarting after a firmware update is not there until it is back.
            try await reader.waitUntilRunning()
            try await reader.waitToAcceptConnection()
        } catch {
            throw LinkError(.cancelled, "the connection attempt was cancelled")
        }
        let connection = try await reader.connect(maximumNotificationLength: mtu - 3)
        self.reader = reader
        maximumWriteLength = mtu - 3
        connectionID = connection.id
        inbound = connection.notifications
    }

    /// Hands `packet` to the emulated reader as a write to RX; fails when the link is closed,
    /// the packet is longer than ``maximumWriteLength``, or the scenario refuses the write.
    public func write(_ packet: [UInt8]) async throws(LinkError) {
        guard !closed else { throw LinkError(.notConnected, "the link is closed") }
        guard packet.count <= maximumWriteLength else {
            throw LinkError(.writeTooLong, "\(packet.count) bytes exceed the \(maximumWriteLength) bytes of one write")
        }
        try await reader.receive(packet, connection: connectionID)
    }

    /// Disconnects from the emulated reader; ``inbound`` finishes. Closing twice does nothing.
    public func close() async {
        guard !closed else { return }
        closed = true
        await reader.disconnect(connection: connectionID)
    }
}
