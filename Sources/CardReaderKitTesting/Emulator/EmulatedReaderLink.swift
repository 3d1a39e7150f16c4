import CardReaderCore
import ReaderProtocol

/// An in-process `ReaderLink` to an ``EmulatedReader``: what BlueZ would carry, without
/// Bluetooth. Writes longer than MTU − 3 are refused (as BlueZ refuses a write without
/// response), and every write fails once the link is closed or the reader dropped it.
///
/// Encrypted as a host that holds a bond with the reader, or not at all: a reader from
/// firmware 3.0 refuses every write on an unencrypted link (documentation §1.1).
public actor EmulatedReaderLink: ReaderLink {
    /// The largest packet: ATT MTU − 3.
    public nonisolated let maximumWriteLength: Int
    /// The emulated reader's notifications, each at most ``maximumWriteLength`` bytes, then
    /// one `LinkInbound.dropped(_:)` if the reader drops the link (idle timeout, scenario,
    /// restart), which says `remote-disconnected` whatever the cause, as BlueZ does.
    public nonisolated let inbound: AsyncStream<LinkInbound>
    /// The reader's Battery-service level: at connection, then each change.
    public nonisolated let batteryLevels: AsyncStream<UInt8>?
    /// Encrypted when opened as a host whose bond the reader accepted.
    public nonisolated let security: LinkSecurity

    /// The emulated reader's connection this link is (``EmulatedReader/Connection/id``).
    public nonisolated let connectionID: Int

    private let reader: EmulatedReader
    private var closed = false

    /// Connects to `reader` at ATT MTU `mtu` (23…247), encrypted with the bond `host` holds
    /// with it (nil: unencrypted). Fails with `LinkError.Code.notPaired` when `host` holds
    /// no bond, and with `LinkError.Code.bondLost` when the reader no longer holds it.
    public init(
        reader: EmulatedReader, mtu: Int = 23, encryptingAs host: EmulatedHost? = nil, waitingForASilentReader: Bool = true
    ) async throws(LinkError) {
        guard (23...247).contains(mtu) else { throw LinkError(.invalidMTU, "the ATT MTU must be 23…247") }
        do {
            // A reader restarting is not there until it is back (or, when the caller does
            // not wait, the reader refuses the connection).
            if waitingForASilentReader { try await reader.waitUntilRunning() }
            try await reader.waitToAcceptConnection()
        } catch {
            throw LinkError(.cancelled, "the connection attempt was cancelled")
        }
        let name = "emulated \(reader.configuration.info.model ?? "reader")"
        if let host {
            guard let key = await host.key(for: reader) else { throw LinkError.notPaired(name) }
            guard await reader.encryptionKeyAccepted(host: host.address, key: key) else {
                throw LinkError.bondLost(name, "it answered the key request with PIN or Key Missing (0x06)")
            }
        }
        let connection = try await reader.connect(maximumNotificationLength: mtu - 3, encrypted: host != nil)
        security = host == nil ? .unencrypted : .encrypted
        self.reader = reader
        maximumWriteLength = mtu - 3
        connectionID = connection.id
        inbound = connection.notifications
        batteryLevels = connection.batteryLevels
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
