package import BLETransport
package import Logging
import Timing

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
    /// The decision for the reader `connection` reaches, and the firmware revision it rests
    /// on: read from Device Information (missing, or refused by the reader: taken as 3.0 or
    /// later), and whether BlueZ holds a bond with it, as the connection last saw
    /// `Device1.Bonded`. Throws when the revision could not be read at all (the link failed
    /// under the read, or bluetoothd had not yet exported the reader's table): a guess then
    /// would turn a link flicker into `not-paired`, which nobody retries.
    package static func decide(for connection: GattConnection, found: BluetoothDeviceInfo, logger: Logger)
        async throws(BluetoothError) -> (revision: String?, decision: LinkSecurityPolicy.Decision)
    {
        let revision = try await firmwareRevision(on: connection, of: found, logger: logger)
        // The connection keeps the device's properties current (read after Connect, then
        // followed through PropertiesChanged): no second GetAll on every connection.
        let bonded = await connection.info?.isBonded ?? found.isBonded
        let decision = LinkSecurityPolicy.decide(firmwareRevision: revision, hostHoldsBond: bonded)
        logger.debug(
            "link security", metadata: ["firmware": "\(revision ?? "none")", "bonded": "\(bonded)", "decision": "\(decision)"])
        return (revision, decision)
    }

    /// Device Information's firmware revision (`2A26`) as text, trailing NULs and spaces
    /// trimmed; nil when the reader has no such value (its table, once settled, holds the
    /// data service but not `2A26`), refuses to give it (an ATT error), or it is not UTF-8.
    ///
    /// Throws when it could not be asked: a read that failed on the way (the link dropped,
    /// bluetoothd gave up, the call timed out), or a table that, after BlueZ's object tree
    /// had time to settle (bluez issue 1489), holds neither Device Information nor the data
    /// service: bluetoothd had not finished exporting it, or the device is no reader.
    private static func firmwareRevision(on connection: GattConnection, of found: BluetoothDeviceInfo, logger: Logger)
        async throws(BluetoothError) -> String?
    {
        let characteristic: GattCharacteristic
        do throws(BluetoothError) {
            characteristic = try await revisionCharacteristic(on: connection, logger: logger)
        } catch where error.code == .missingAttribute {
            let table = try await connection.gattTable(readValues: false)
            guard table.service(BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService)) != nil else {
                let services = table.services.map(\.uuid.description).joined(separator: ", ")
                throw .missingAttribute(
                    "\(found.summary) serves neither Device Information nor the reader's data service "
                        + "(services: \(services.isEmpty ? "none" : services))")
            }
            logger.debug("no firmware revision: \(error)")
            return nil
        }
        let bytes: [UInt8]
        do throws(BluetoothError) {
            bytes = try await connection.read(characteristic)
        } catch where isReadersRefusal(error) {
            logger.debug("no firmware revision: the reader refused the read: \(error)")
            return nil
        }
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        guard !text.contains("\u{FFFD}") else { return nil }
        return String(text.reversed().drop { $0 == " " }.reversed())
    }

    /// `2A26` of Device Information, looked for once more after BlueZ's object tree has had
    /// time to settle when it is missing.
    private static func revisionCharacteristic(on connection: GattConnection, logger: Logger)
        async throws(BluetoothError) -> GattCharacteristic
    {
        func look() async throws(BluetoothError) -> GattCharacteristic {
            try await connection.characteristic(
                BluetoothUUID(stringLiteral: "2a26"), inService: BluetoothUUID(stringLiteral: "180a"))
        }
        do throws(BluetoothError) {
            return try await look()
        } catch where error.code == .missingAttribute {
            logger.debug("no firmware revision yet; looking again once BlueZ's object tree settles")
            let clock = connection.device.session.clock
            try? await clock.sleep(clock.elapsed() + BlueZReaderLink.settleTime)
            return try await look()
        }
    }

    /// Whether a failed read is the reader's own answer, an ATT Error Response, rather than
    /// a failure on the way. BlueZ 5.66 (`create_gatt_dbus_error` in src/gatt-client.c)
    /// maps ATT errors to `NotPermitted` ("Read not permitted", "Not paired"),
    /// `NotAuthorized`, `NotSupported`, `InvalidArguments`, and any other to `Failed` with
    /// "Operation failed with ATT error: 0x..". A plain `Failed` ("Operation failed", "Not
    /// connected"), a timeout, `InProgress` or a lost link is no answer.
    static func isReadersRefusal(_ error: BluetoothError) -> Bool {
        guard case .bluez(_, let name, let message) = error else { return false }
        switch BluetoothError.Code(rawValue: name) {
        case .notPermitted, .notAuthorized, .notSupported, .invalidArguments: return true
        case .bluezFailed: return message.lowercased().contains("att error")
        default: return false
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
