import Logging

/// GATT values: the table, binding characteristics, reads, notifications and writes.
extension GattConnection {
    /// Every service, characteristic and descriptor, with the values of readable
    /// characteristics and descriptors when `readValues` (unreadable ones stay nil).
    public func gattTable(readValues: Bool = true) async throws(BluetoothError) -> GattTable {
        var table = GattTable(objects: try await session.managedObjects(), devicePath: path)
        guard readValues else { return table }
        for s in table.services.indices {
            for c in table.services[s].characteristics.indices {
                let characteristic = table.services[s].characteristics[c]
                if characteristic.flags.contains("read") {
                    table.services[s].characteristics[c].value = try? await readValue(
                        characteristic.path, BlueZNames.gattCharacteristicInterface)
                }
                for d in characteristic.descriptors.indices where characteristic.descriptors[d].flags.contains("read") {
                    table.services[s].characteristics[c].descriptors[d].value = try? await readValue(
                        characteristic.descriptors[d].path, BlueZNames.gattDescriptorInterface)
                }
            }
        }
        return table
    }

    /// The characteristic `uuid` of service `service`; ``BluetoothError/missingAttribute(_:)``
    /// names what is missing and what the device has instead.
    public func characteristic(_ uuid: BluetoothUUID, inService service: BluetoothUUID) async throws(BluetoothError)
        -> GattCharacteristic
    {
        let table = GattTable(objects: try await session.managedObjects(), devicePath: path)
        let candidates = table.services.filter { $0.uuid == service }
        guard !candidates.isEmpty else {
            let found = table.services.map(\.uuid.description).joined(separator: ", ")
            throw .missingAttribute("\(name) has no GATT service \(service) (services: \(found.isEmpty ? "none" : found))")
        }
        guard let info = candidates.lazy.compactMap({ $0.characteristic(uuid) }).first else {
            let found = candidates.flatMap(\.characteristics).map(\.uuid.description).joined(separator: ", ")
            throw .missingAttribute(
                "service \(service) of \(name) has no characteristic \(uuid) (characteristics: \(found.isEmpty ? "none" : found))")
        }
        if let mtu = info.mtu { mtus[info.path] = mtu }
        attributesInUse.insert(info.path)
        return GattCharacteristic(info, serviceUUID: service)
    }

    /// Reads a characteristic's value (`ReadValue`).
    public func read(_ characteristic: GattCharacteristic) async throws(BluetoothError) -> [UInt8] {
        try await readValue(characteristic.path, BlueZNames.gattCharacteristicInterface)
    }

    private func readValue(_ path: DBusObjectPath, _ interface: String) async throws(BluetoothError) -> [UInt8] {
        let reply = try await perform(
            interface, "ReadValue", [.stringVariantDictionary([:])], at: path, timeout: .seconds(10),
            operation: "ReadValue of \(path)")
        guard let bytes = reply.first?.bytesValue else { throw .unexpectedReply("ReadValue of \(path) returned no bytes") }
        return bytes
    }

    /// Subscribes to the characteristic's notifications. With `.acquiredSocket` (the
    /// default) they come over an `AcquireNotify` socket where bluetoothd offers one and
    /// this bus passes descriptors, else (or if bluetoothd refuses it) as
    /// `PropertiesChanged(Value)` signals after `StartNotify`; ``GattNotifications/transport``
    /// says which. Returns once notifications are enabled.
    public func notifications(
        of characteristic: GattCharacteristic, preferring transport: GattValueTransport = .acquiredSocket
    ) async throws(BluetoothError) -> GattNotifications {
        let path = characteristic.path
        let values = sink.openStream(for: path)
        attributesInUse.insert(path)
        if transport == .acquiredSocket, characteristic.acquirable.notify, session.connection.canPassUnixFDs {
            do throws(BluetoothError) {
                let socket = try await acquire("AcquireNotify", characteristic)
                let sink = self.sink
                socket.startReading(
                    deliver: { sink.deliver($0, from: path) },
                    hangUp: { [weak self] in Task { await self?.socketHungUp(path) } })
                return GattNotifications(values: values, transport: .acquiredSocket)
            } catch where Self.mayFallBack(error) {
                session.logger.debug(
                    "AcquireNotify refused, using StartNotify",
                    metadata: ["characteristic": "\(characteristic.uuid)", "error": "\(error)"])
            } catch {
                sink.closeStream(for: path)
                throw error
            }
        }
        do throws(BluetoothError) {
            try await perform(
                BlueZNames.gattCharacteristicInterface, "StartNotify", at: path, timeout: .seconds(10),
                operation: "StartNotify on \(characteristic.uuid)")
        } catch {
            sink.closeStream(for: path)
            throw error
        }
        startedNotify.insert(path)
        return GattNotifications(values: values, transport: .dbusMessages)
    }

    /// A writer for the characteristic, by what its values need (`type`, by default the
    /// characteristic's ``GattCharacteristic/defaultWriteType``):
    /// - `.request`: each value one Write Request (`WriteValue`); a write returns when the
    ///   peer has acknowledged it, and the caller writes the next one after that, so values
    ///   reach the peer in the order written over any number of ATT bearers (Enhanced ATT
    ///   included). For a byte stream.
    /// - `.command`: Write Commands, over an `AcquireWrite` socket where bluetoothd offers
    ///   one and this bus passes descriptors (`transport` `.acquiredSocket`, the default),
    ///   else with `WriteValue`. A write returns once bluetoothd has queued it; with
    ///   Enhanced ATT, bluetoothd sends queued commands over whichever bearer is free, so
    ///   the peer can receive them out of order. For values that each stand alone.
    public func writer(
        for characteristic: GattCharacteristic, type: GattWriteType? = nil,
        preferring transport: GattValueTransport = .acquiredSocket
    ) async throws(BluetoothError) -> GattWriter {
        guard let type = type ?? characteristic.defaultWriteType, characteristic.canWrite(type) else {
            throw Self.notWritable(characteristic, type)
        }
        if type == .command, transport == .acquiredSocket, characteristic.acquirable.write,
            session.connection.canPassUnixFDs
        {
            do throws(BluetoothError) {
                let socket = try await acquire("AcquireWrite", characteristic)
                return GattWriter(connection: self, characteristic: characteristic, socket: socket, type: .command)
            } catch where Self.mayFallBack(error) {
                session.logger.debug(
                    "AcquireWrite refused, using WriteValue",
                    metadata: ["characteristic": "\(characteristic.uuid)", "error": "\(error)"])
            }
        }
        attributesInUse.insert(characteristic.path)
        return GattWriter(connection: self, characteristic: characteristic, socket: nil, type: type)
    }

    /// bluetoothd declining a socket (an older version, a characteristic acquired by
    /// someone else) leaves the message path; a lost link or a cancellation does not.
    private static func mayFallBack(_ error: BluetoothError) -> Bool {
        switch error {
        case .bluez, .unexpectedReply: true
        default: false
        }
    }

    /// `AcquireNotify` or `AcquireWrite`: the socket and its MTU.
    private func acquire(_ method: String, _ characteristic: GattCharacteristic) async throws(BluetoothError)
        -> GattAcquiredSocket
    {
        let reply = try await perform(
            BlueZNames.gattCharacteristicInterface, method, [.stringVariantDictionary([:])], at: characteristic.path,
            timeout: .seconds(10), operation: "\(method) on \(characteristic.uuid)")
        guard reply.count == 2, let handle = reply[0].unixFDValue, let mtu = reply[1].intValue,
            let fd = handle.take()
        else { throw .unexpectedReply("\(method) on \(characteristic.uuid) returned \(reply.map(\.signature))") }
        let socket = GattAcquiredSocket(taking: fd, mtu: mtu, connection: session.connection)
        mtus[characteristic.path] = mtu
        attributesInUse.insert(characteristic.path)
        sockets.append(socket)
        return socket
    }

    /// The largest value one write to `characteristic` carries now: MTU − 3 (20 when
    /// BlueZ reports no MTU).
    public func maximumWriteLength(for characteristic: GattCharacteristic) -> Int {
        GattPayload.maximumLength(mtu: mtus[characteristic.path] ?? characteristic.mtu)
    }

    /// Writes `bytes` with one `WriteValue` (BlueZ uses a long write for a value longer
    /// than ``maximumWriteLength(for:)`` written with response). `org.bluez.Error.InProgress`
    /// is back-pressure and is retried after a short, bounded backoff. `type` defaults to
    /// the characteristic's ``GattCharacteristic/defaultWriteType``.
    public func write(_ bytes: [UInt8], to characteristic: GattCharacteristic, type: GattWriteType? = nil)
        async throws(BluetoothError)
    {
        guard let type = type ?? characteristic.defaultWriteType, characteristic.canWrite(type) else {
            throw Self.notWritable(characteristic, type)
        }
        var backoff = Duration.milliseconds(5)
        for attempt in 1...Self.inProgressRetries {
            do throws(BluetoothError) {
                try await perform(
                    BlueZNames.gattCharacteristicInterface, "WriteValue",
                    [.bytes(bytes), .stringVariantDictionary(["type": .string(type.rawValue)])],
                    at: characteristic.path, timeout: .seconds(10), operation: "WriteValue to \(characteristic.uuid)")
                return
            } catch where error.code == .inProgress && attempt < Self.inProgressRetries {
                await sleep(for: backoff, until: now + backoff)
                backoff = min(backoff * 2, .milliseconds(100))
            }
        }
    }

    private static let inProgressRetries = 20

    private static func notWritable(_ characteristic: GattCharacteristic, _ type: GattWriteType?) -> BluetoothError {
        let what =
            switch type {
            case .request: "does not take writes with response"
            case .command: "does not take writes without response"
            case nil: "is not writable"
            }
        return .bluez(
            operation: "writing to \(characteristic.uuid)", name: BluetoothError.Code.notSupported.rawValue,
            message: "the characteristic \(what) (flags: \(characteristic.flags.sorted().joined(separator: ", ")))")
    }
}
