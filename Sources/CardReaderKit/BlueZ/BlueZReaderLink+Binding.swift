package import BLETransport
import DisabledLogging
package import Logging
import Timing

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
            let (transmit, receive) = try await dataCharacteristics(of: connection, logger: logger)
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
            let battery = await BlueZBatteryLevels.follow(device: device.path, on: connection.device.session.connection)
            let link = BlueZReaderLink(
                session: connection.device.session, ownsSession: ownsSession, connection: connection, device: device,
                notifications: notifications, writer: writer, maximumPacket: maximumMTU - 3, battery: battery)
            logger.info("link open", metadata: ["reader": "\(device.summary)", "transport": "\(link.transport)"])
            return link
        } catch {
            await connection.disconnect()
            throw error
        }
    }

    /// TX and RX. BlueZ can report a device's services resolved before it has exported
    /// every characteristic (bluez issue 1489): when one is missing, they are looked for
    /// once more after the object tree has had time to settle, before `missing-attribute`
    /// is reported.
    private static func dataCharacteristics(of connection: GattConnection, logger: Logger) async throws(BluetoothError)
        -> (transmit: GattCharacteristic, receive: GattCharacteristic)
    {
        let service = BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService)
        func look() async throws(BluetoothError) -> (GattCharacteristic, GattCharacteristic) {
            (
                try await connection.characteristic(
                    BluetoothUUID(stringLiteral: ReaderGATTProfile.transmitCharacteristic), inService: service),
                try await connection.characteristic(
                    BluetoothUUID(stringLiteral: ReaderGATTProfile.receiveCharacteristic), inService: service)
            )
        }
        do throws(BluetoothError) {
            return try await look()
        } catch where error.code == .missingAttribute {
            logger.notice("the data service is not all there yet; looking again once BlueZ's object tree settles")
            let clock = connection.device.session.clock
            try? await clock.sleep(clock.elapsed() + settleTime)
            return try await look()
        }
    }

    /// How long BlueZ's object tree gets to settle before the data service is looked for
    /// again: bluetoothd exports a table's objects within milliseconds of each other.
    static let settleTime = Duration.milliseconds(500)
}
