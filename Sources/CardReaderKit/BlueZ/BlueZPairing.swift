internal import BLETransport
import CardReaderCore
import Timing
import Locking
internal import Logging

/// One pairing over BlueZ, as ``BlueZReaderConnector/pair(_:)`` runs it:
///
/// 1. one pairing at a time per adapter in this process (bondable is adapter-wide);
/// 2. an agent (KeyboardOnly) on the connector's own D-Bus connection, registered for this
///    pairing only, never the default, answering only for this reader: bluetoothd accepts
///    Just Works itself during `Pair`, and asks the agent for a passkey when the reader
///    shows one, which the request's callback gives within its time limit;
/// 3. the adapter made bondable for the pairing, and put back as it was;
/// 4. `Device1.Pair`, cancelled (`CancelPairing`) if the caller is, within the timeout.
///
/// BlueZ reports every refusal as `AuthenticationFailed`; what the agent was asked tells
/// a wrong passkey from a reader outside pairing mode.
struct BlueZPairing {
    let device: BluetoothDevice
    let adapter: BluetoothAdapter
    let request: PairingRequest
    let reader: String
    let logger: Logger

    /// What the agent was asked and answered.
    private struct Passkeys: Sendable {
        var asked = false
        var failure: PairingError?
    }

    func run() async throws(PairingError) -> PairingOutcome {
        await PairingTurns.shared.take(adapter.path)
        let result = await runHoldingTurn()
        await PairingTurns.shared.release(adapter.path)
        return try result.get()
    }

    private func runHoldingTurn() async -> Result<PairingOutcome, PairingError> {
        let passkeys = Locked(Passkeys())
        let agent: PairingAgent
        do throws(BluetoothError) {
            agent = try await PairingAgent.register(
                on: device.session, capability: .keyboardOnly, responder: responder(passkeys),
                at: DBusObjectPath(stringLiteral: "/cardreaderkit/agent\(UInt32.random(in: 0...UInt32.max))"))
        } catch {
            return .failure(PairingError(.linkFailed, "could not register a pairing agent: \(error)", link: LinkError(error)))
        }
        let wasPairable = (try? await adapter.isPairable()) ?? false
        var result: Result<Void, BluetoothError>
        do throws(BluetoothError) {
            if !wasPairable { try await adapter.setPairable(true) }
            logger.info("pairing", metadata: ["reader": "\(reader)", "adapter": "\(adapter.name)"])
            result = await pair()
        } catch {
            result = .failure(error)
        }
        if !wasPairable {
            // Even when the caller gave up (Ctrl-C at the passkey prompt): else the adapter
            // would stay bondable for every device in range.
            let adapter = adapter
            await Task { _ = try? await adapter.setPairable(false) }.value
        }
        await agent.unregister()
        let state = passkeys.withLock { $0 }
        switch result {
        case .success:
            let method: PairingMethod = state.asked ? .passkeyEntry : .justWorks
            logger.info("paired", metadata: ["reader": "\(reader)", "method": "\(method)"])
            return .success(.paired(method))
        case .failure(let error):
            return .failure(state.failure ?? classify(error, passkeyAsked: state.asked))
        }
    }

    /// `Pair` within the request's timeout; `CancelPairing` when the caller is cancelled or
    /// the timeout passes (only then: with no pairing in progress it would unpair).
    private func pair() async -> Result<Void, BluetoothError> {
        let device = device
        let timeout = request.timeout
        let clock = device.session.clock
        let outcome = await clock.run(until: clock.elapsed() + timeout) { () -> Result<Void, BluetoothError> in
            do throws(BluetoothError) {
                try await device.pair(timeout: timeout + .seconds(5))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .finished(let result):
            return result
        case .timedOut:
            await device.cancelPairing()
            return .failure(.timedOut("pairing with \(reader)", after: timeout))
        case .cancelled:
            await device.cancelPairing()
            return .failure(.cancelled)
        }
    }

    private func responder(_ passkeys: Locked<Passkeys>) -> PairingResponder {
        let target = device.path
        let entry = request.passkey
        let prompt = PasskeyPrompt(reader: reader, timeLimit: request.passkeyTimeLimit)
        let reader = reader
        let clock = device.session.clock
        return PairingResponder(
            accepts: { $0 == target },
            passkey: { _ in
                passkeys.withLock { $0.asked = true }
                guard let entry else {
                    passkeys.withLock {
                        $0.failure = PairingError(.passkeyNeeded, "\(reader) displays a passkey to type, and nobody can be asked")
                    }
                    return nil
                }
                switch await clock.run(until: clock.elapsed() + prompt.timeLimit, { await entry(prompt) }) {
                case .finished(let passkey?):
                    return passkey.value
                case .finished(nil):
                    passkeys.withLock { $0.failure = PairingError(.passkeyDeclined, "nobody gave the passkey \(reader) displays") }
                case .timedOut:
                    passkeys.withLock {
                        $0.failure = PairingError(.passkeyTimedOut, "no passkey was typed within \(prompt.timeLimit)")
                    }
                case .cancelled:
                    passkeys.withLock { $0.failure = PairingError(.cancelled, "the pairing with \(reader) was cancelled") }
                }
                return nil
            },
            authorize: { $0 == target })
    }

    /// A failed `Pair`, as a pairing error.
    private func classify(_ error: BluetoothError, passkeyAsked: Bool) -> PairingError {
        let said = "BlueZ: \(error)"
        switch error.code {
        case .authenticationFailed where passkeyAsked:
            return PairingError(.wrongPasskey, "\(reader) refused the passkey typed (\(said))")
        case .authenticationFailed:
            return PairingError(
                .pairingRefused, "\(reader) refused to pair: it is not in pairing mode, or it does not pair (\(said))")
        case .authenticationRejected, .inProgress:
            return PairingError(.busy, "another pairing is under way (\(said))")
        case .authenticationTimeout, .timedOut, .noReply:
            return PairingError(.timedOut, "\(reader) did not finish pairing within \(request.timeout) (\(said))")
        case .cancelled:
            return PairingError(.cancelled, "the pairing with \(reader) was cancelled")
        case .authenticationCanceled:
            return PairingError(.linkFailed, "the link to \(reader) dropped during the pairing (\(said))", link: LinkError(error))
        default:
            return PairingError(.linkFailed, "could not pair with \(reader): \(error)", link: LinkError(error))
        }
    }
}

/// Pairings in this process take turns per adapter: an adapter's bondable setting is its
/// own, not a pairing's.
actor PairingTurns {
    static let shared = PairingTurns()
    private var busy: Set<DBusObjectPath> = []
    private var waiting: [DBusObjectPath: [CheckedContinuation<Void, Never>]] = [:]

    func take(_ adapter: DBusObjectPath) async {
        guard busy.contains(adapter) else {
            busy.insert(adapter)
            return
        }
        await withCheckedContinuation { waiting[adapter, default: []].append($0) }
    }

    func release(_ adapter: DBusObjectPath) {
        if var queue = waiting[adapter], !queue.isEmpty {
            queue.removeFirst().resume()
            waiting[adapter] = queue
        } else {
            busy.remove(adapter)
        }
    }
}
