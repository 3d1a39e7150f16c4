import BLETransport
import CardReaderKit
import Logging

/// The checks of one reader, from the discovery's sighting to its answer to GET INFO, each
/// step as ``BlueZReaderConnector`` takes it.
enum ReaderChecks {
    static let dataService = BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService)
    static let transmitUUID = BluetoothUUID(stringLiteral: ReaderGATTProfile.transmitCharacteristic)
    static let receiveUUID = BluetoothUUID(stringLiteral: ReaderGATTProfile.receiveCharacteristic)
    /// Warnings only: the checks' lines say what happened.
    static let logger = {
        var logger = Logger(label: "readerctl")
        logger.logLevel = .warning
        return logger
    }()

    static func found(
        _ reader: DiscoveryFilter, among devices: [BluetoothDeviceInfo], seenAfter: Duration?, on adapter: BluetoothAdapter,
        within duration: Duration
    ) -> DoctorFinding<BluetoothDeviceInfo> {
        guard let device = devices.first(where: reader.matches) else {
            var seen = SeenDevices()
            for device in devices { seen.note(device) }
            return StackChecks.failure(.deviceNotFound("\(reader.summary) on \(adapter.name)", after: duration, seen: seen))
        }
        let state = device.isConnected ? "already connected" : seenAfter.map { "seen after \($0.secondsText)" } ?? "seen"
        let bond = device.isBonded ? "bonded" : device.isPaired ? "paired, no bond" : "not paired"
        return .holds(device, "\(device.summary)" + (device.rssi.map { " RSSI \($0) dBm" } ?? "") + ", \(state), \(bond)")
    }

    static func connected(
        _ device: BluetoothDeviceInfo, on adapter: BluetoothAdapter, within timeout: Duration
    ) async -> DoctorFinding<GattConnection> {
        do throws(BluetoothError) {
            let connection = try await adapter.device(at: device.path).connect(timeout: timeout)
            return .holds(connection, "\(device.summary) connected, services resolved")
        } catch {
            return StackChecks.failure(error)
        }
    }

    static func service(_ connection: GattConnection, device: BluetoothDeviceInfo) async -> DoctorFinding<GattTable> {
        do throws(BluetoothError) {
            let table = try await connection.gattTable(readValues: false)
            guard let service = table.service(dataService) else {
                let services = table.services.map(\.uuid.description).joined(separator: ", ")
                return StackChecks.failure(.missingAttribute(
                    "\(device.summary) has no service \(dataService) (services: \(services.isEmpty ? "none" : services))"))
            }
            return .holds(table, "ISSC data service \(dataService) at \(service.path)")
        } catch {
            return StackChecks.failure(error)
        }
    }

    /// The characteristic `uuid` of the data service, with one of `flags` (what the reader
    /// link needs of it).
    static func characteristic(
        _ uuid: BluetoothUUID, in table: GattTable, needing flags: Set<String>, for use: String
    ) -> DoctorFinding<Void> {
        guard let characteristic = table.characteristic(uuid, inService: dataService) else {
            let found = table.service(dataService)?.characteristics.map(\.uuid.description).joined(separator: ", ") ?? ""
            return StackChecks.failure(.missingAttribute(
                "the data service has no characteristic \(uuid) (characteristics: \(found.isEmpty ? "none" : found))"))
        }
        let listed = characteristic.flags.joined(separator: ", ")
        guard !flags.isDisjoint(with: characteristic.flags) else {
            return StackChecks.failure(.missingAttribute(
                "\(uuid) has flags \(listed.isEmpty ? "none" : listed), without \(flags.sorted().joined(separator: " or ")): \(use) cannot work"))
        }
        return .holds((), "\(uuid), flags \(listed)")
    }

    /// What protects the link (reader documentation §1.1), decided as the connector does
    /// before TX or RX is touched: holds for a bonded reader (encrypted) and for one before
    /// 3.0 (unencrypted: card operations need --allow-unencrypted); fails for a reader that
    /// needs an encrypted link this host cannot give, so that bluetoothd is never made to
    /// pair by itself, and for a revision that could not be read (the link failed under the
    /// read).
    static func linkSecurity(_ connection: GattConnection, device: BluetoothDeviceInfo) async -> DoctorFinding<Void> {
        let revision: String?
        let decision: LinkSecurityPolicy.Decision
        do throws(BluetoothError) {
            (revision, decision) = try await BlueZLinkSecurity.decide(for: connection, found: device, logger: logger)
        } catch {
            await connection.disconnect()
            return StackChecks.failure(error)
        }
        let firmware = revision.map { "firmware \($0)" } ?? "no firmware revision given (taken as 3.0 or later)"
        switch decision {
        case .encryptWithBond:
            return .holds((), "\(firmware); bonded: the link is encrypted with the bond's key")
        case .openUnencrypted:
            return .holds((), "\(firmware), before 3.0: the link is unencrypted; card operations need --allow-unencrypted")
        case .needsPairing:
            await connection.disconnect()
            let refusal = LinkError.notPaired(device.summary)
            return .fails("\(firmware): \(refusal.detail)", fix: refusal.fix)
        }
    }

    /// Subscribes to TX and gets RX's writer: the link the reader runs over.
    static func notifications(
        _ connection: GattConnection, transport: GattValueTransport
    ) async -> DoctorFinding<BlueZReaderLink> {
        do throws(BluetoothError) {
            let link = try await BlueZReaderLink.bind(connection, valueTransport: transport, logger: logger)
            return .holds(link, "TX notifications on, \(link.transport), packets of \(await link.maximumWriteLength) bytes")
        } catch {
            return StackChecks.failure(error)
        }
    }

    /// A reader over `link`, for GET INFO (the caller disconnects it).
    static func session(over link: BlueZReaderLink) -> CardReader {
        CardReader(connector: OpenedLink(link: link), logger: logger)
    }

    /// GET INFO through the reader session.
    static func getInfo(_ reader: CardReader) async -> DoctorFinding<Void> {
        do throws(CardReaderError) {
            try await reader.connect()
            let info = try await reader.info()
            let shown = [
                info.model, info.serialNumber.map { "serial \($0)" }, info.firmwareVersion.map { "firmware \($0)" },
                info.batteryPercent.map { "battery \($0) %" },
            ].compactMap { $0 }
            return .holds((), shown.isEmpty ? "answered" : shown.joined(separator: ", "))
        } catch {
            return .fails(error.description, fix: error.fix)
        }
    }

    /// Hands a link that is open already to a ``CardReader``.
    private struct OpenedLink: ReaderConnector {
        let link: BlueZReaderLink
        var readerDescription: String { link.device.summary }
        func connect() async throws(LinkError) -> any ReaderLink { link }
    }
}
