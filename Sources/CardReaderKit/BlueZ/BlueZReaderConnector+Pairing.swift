internal import BLETransport
import FoundationEssentials
internal import Logging
import Timing

/// Pairing over BlueZ: the reader must be in pairing mode (reader documentation §1.1).
extension BlueZReaderConnector: PairingReaderConnector {
    /// Whether BlueZ holds a bond with the reader (`Device1.Bonded`), looked up among the
    /// devices BlueZ knows on the adapter, without a discovery.
    public func holdsBond() async throws(PairingError) -> Bool {
        try await withAdapter { adapter throws(BluetoothError) in
            try await adapter.knownDevices().first { filter.matches($0) }?.isBonded ?? false
        }
    }

    /// Finds the reader (within the request's timeout), then pairs and bonds with it as
    /// `BlueZPairing` describes, and disconnects. A reader BlueZ already holds a bond with
    /// is left alone (`alreadyBonded`): BlueZ 5.66 cannot pair a bonded LE device again.
    public func pair(_ request: PairingRequest) async throws(PairingError) -> PairingOutcome {
        return try await withAdapter { adapter throws(PairingError) in
            let clock = adapter.session.clock
            let deadline = clock.elapsed() + request.timeout
            let found: BluetoothDeviceInfo
            do throws(BluetoothError) {
                found = try await adapter.find(filter, timeout: request.timeout)
            } catch {
                throw PairingError(.linkFailed, "could not find \(readerDescription): \(error)", link: LinkError(error))
            }
            if found.isBonded { return .alreadyBonded }
            var left = request
            left.timeout = max(deadline - clock.elapsed(), .seconds(1))
            let device = adapter.device(at: found.path)
            let pairing = BlueZPairing(device: device, adapter: adapter, request: left, reader: found.summary, logger: logger)
            do throws(PairingError) {
                let outcome = try await pairing.run()
                await device.disconnect()
                if case .paired(let method) = outcome {
                    keep(ReaderBond(address: found.address, name: found.name, adapter: adapter.name, pairedAt: Date(), method: method))
                }
                return outcome
            } catch {
                await device.disconnect()
                throw error
            }
        }
    }

    /// Deletes BlueZ's bond with the reader (`Adapter1.RemoveDevice`: its keys and its
    /// cached GATT table go, and it is disconnected first), and says whether there was one:
    /// false when BlueZ knows no paired device of that name or address.
    @discardableResult
    public func unpair() async throws(PairingError) -> Bool {
        try await withAdapter { adapter throws(BluetoothError) in
            guard let known = try await adapter.knownDevices().first(where: { $0.isPaired && filter.matches($0) }) else {
                return false
            }
            try await adapter.removeDevice(at: known.path)
            logger.info("unpaired", metadata: ["reader": "\(known.summary)"])
            forget(address: known.address, adapter: adapter.name)
            return true
        }
    }

    /// Notes the bond in ``bondStore``: a store that cannot be written costs the note, not
    /// the pairing.
    private func keep(_ bond: ReaderBond) {
        do throws(ReaderBondStoreError) {
            try bondStore?.record(bond)
        } catch {
            logger.warning("the pairing was not noted in the bond store: \(error)")
        }
    }

    private func forget(address: String, adapter: String) {
        do throws(ReaderBondStoreError) {
            try bondStore?.remove(address: address, adapter: adapter)
        } catch {
            logger.warning("the bond store still lists the reader: \(error)")
        }
    }

    /// Runs `body` with the adapter, on a D-Bus connection of its own that is closed after.
    private func withAdapter<Value: Sendable>(
        _ body: (BluetoothAdapter) async throws(BluetoothError) -> Value
    ) async throws(PairingError) -> Value {
        try await withAdapter { adapter throws(PairingError) in
            do throws(BluetoothError) {
                return try await body(adapter)
            } catch {
                throw PairingError(.linkFailed, "\(readerDescription): \(error)", link: LinkError(error))
            }
        }
    }

    private func withAdapter<Value: Sendable>(
        _ body: (BluetoothAdapter) async throws(PairingError) -> Value
    ) async throws(PairingError) -> Value {
        let session: BluetoothSession
        do throws(BluetoothError) {
            session = try await BluetoothSession.open(busAddress: busAddress, clock: clock, logger: logger)
        } catch {
            throw PairingError(.linkFailed, "\(error)", link: LinkError(error))
        }
        do throws(PairingError) {
            let adapter: BluetoothAdapter
            do throws(BluetoothError) {
                adapter = try await session.adapter(
                    named: self.adapter, startingWithin: timeout, kernelControllers: kernelControllers())
            } catch {
                throw PairingError(.linkFailed, "\(error)", link: LinkError(error))
            }
            let value = try await body(adapter)
            await session.close()
            return value
        } catch {
            await session.close()
            throw error
        }
    }
}
