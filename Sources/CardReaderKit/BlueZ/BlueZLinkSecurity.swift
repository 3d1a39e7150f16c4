package import BLETransport
package import Logging

/// How the link to a reader over BlueZ is secured, and how that is known. BlueZ 5.66 shows
/// no encryption state on D-Bus, so it is inferred from what BlueZ and the kernel do:
///
/// - For a device BlueZ holds a bond with (`Device1.Bonded`), bluetoothd opens the ATT
///   channel at medium security: the kernel encrypts with the bond's key before the first
///   ATT PDU, and the connection fails if the reader does not hold the key.
/// - The TX subscription, which a reader from firmware 3.0 grants only on an encrypted link
///   (ATT 0x0F otherwise), then succeeds.
///
/// Both together make the link `encrypted`. A device without a bond gets an unencrypted
/// link, and only a reader before 3.0 is opened that way (``LinkSecurityPolicy``).
package enum BlueZLinkSecurity {
    /// The decision for the reader `connection` reaches: its firmware revision read from
    /// Device Information (missing or unreadable: taken as 3.0 or later), and whether BlueZ
    /// holds a bond with it, as the connection last saw `Device1.Bonded`.
    package static func decide(for connection: GattConnection, found: BluetoothDeviceInfo, logger: Logger) async
        -> LinkSecurityPolicy.Decision
    {
        let revision = await firmwareRevision(on: connection, logger: logger)
        // The connection keeps the device's properties current (read after Connect, then
        // followed through PropertiesChanged): no second GetAll on every connection.
        let bonded = await connection.info?.isBonded ?? found.isBonded
        let decision = LinkSecurityPolicy.decide(firmwareRevision: revision, hostHoldsBond: bonded)
        logger.debug(
            "link security", metadata: ["firmware": "\(revision ?? "unreadable")", "bonded": "\(bonded)", "decision": "\(decision)"])
        return decision
    }

    /// Device Information's firmware revision (`2A26`) as text, trailing NULs and spaces
    /// trimmed; nil when the service or the value is missing, or it is not UTF-8.
    package static func firmwareRevision(on connection: GattConnection, logger: Logger) async -> String? {
        do throws(BluetoothError) {
            let characteristic = try await connection.characteristic(
                BluetoothUUID(stringLiteral: "2a26"), inService: BluetoothUUID(stringLiteral: "180a"))
            let bytes = try await connection.read(characteristic)
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            guard !text.contains("\u{FFFD}") else { return nil }
            return String(text.reversed().drop { $0 == " " }.reversed())
        } catch {
            logger.debug("no firmware revision: \(error)")
            return nil
        }
    }

    /// Whether a BlueZ failure means the link could not be encrypted: an authentication
    /// failure (the reader no longer holds the key: PIN or Key Missing, 0x06), or an ATT
    /// error for missing encryption or authentication (0x05, 0x0E, 0x0F).
    package static func isEncryptionFailure(_ error: BluetoothError) -> Bool {
        switch error.code {
        case .encryptionFailed, .authenticationFailed, .authenticationCanceled, .authenticationRejected: return true
        default: break
        }
        let text = error.description.lowercased()
        return ["att error: 0x05", "att error: 0x0e", "att error: 0x0f", "key missing", "authentication"]
            .contains { text.contains($0) }
    }
}
