package import BLETransport
import DisabledLogging
package import Logging

extension BlueZReaderLink {
    /// A reader link over a GATT connection that is already open (`BluetoothDevice.connect(timeout:attempts:)`):
    /// binds the ISSC TX and RX characteristics, enables TX's notifications before anything
    /// is written (the reader drops answers to frames written before that, §1) and gets RX's
    /// writer, in packets of at most `maximumMTU` − 3 bytes, each a Write Request: the reader
    /// acknowledges each before the next one leaves, so a frame or YModem block longer than
    /// one packet arrives in order however many ATT bearers the link has.
    /// `valueTransport` chooses how notifications arrive. If binding fails, the
    /// connection is disconnected. Closing the link disconnects it; the session stays the
    /// caller's.
    package static func bind(
        _ connection: GattConnection, valueTransport: GattValueTransport = .acquiredSocket, maximumMTU: Int = 247,
        logger: Logger = .disabled
    ) async throws(BluetoothError) -> BlueZReaderLink {
        try await bind(
            connection, device: nil, ownsSession: false, valueTransport: valueTransport,
            maximumMTU: min(max(maximumMTU, 23), 247), logger: logger)
    }

    /// ``bind(_:valueTransport:maximumMTU:logger:)``, with the device as discovery found it
    /// (used when BlueZ has no newer properties) and whether closing the link closes the
    /// session too.
    static func bind(
        _ connection: GattConnection, device found: BluetoothDeviceInfo?, ownsSession: Bool,
        valueTransport: GattValueTransport, maximumMTU: Int, logger: Logger
    ) async throws(BluetoothError) -> BlueZReaderLink {
        do throws(BluetoothError) {
            let transmit = try await connection.characteristic(
                BluetoothUUID(stringLiteral: ReaderGATTProfile.transmitCharacteristic),
                inService: BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService))
            let receive = try await connection.characteristic(
                BluetoothUUID(stringLiteral: ReaderGATTProfile.receiveCharacteristic),
                inService: BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService))
            // Subscribe before the first write, or the first answers are lost (§1).
            let notifications = try await connection.notifications(of: transmit, preferring: valueTransport)
            let writer = try await connection.writer(for: receive, preferring: valueTransport)
            if writer.type == .command {
                logger.warning(
                    "RX takes writes without response only: a frame longer than one packet arrives in order only if the link has one ATT bearer",
                    metadata: ["flags": "\(receive.flags.sorted())"])
            }
            let device: BluetoothDeviceInfo =
                if let current = await connection.info ?? found { current } else { try await connection.device.info() }
            let link = BlueZReaderLink(
                session: connection.device.session, ownsSession: ownsSession, connection: connection, device: device,
                notifications: notifications, writer: writer, maximumPacket: maximumMTU - 3)
            logger.info("link open", metadata: ["reader": "\(device.summary)", "transport": "\(link.transport)"])
            return link
        } catch {
            await connection.disconnect()
            throw error
        }
    }
}
