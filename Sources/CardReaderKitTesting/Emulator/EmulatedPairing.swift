import CardReaderCore
import ReaderProtocol
import Timing

/// One pairing of an ``EmulatedHost`` with an ``EmulatedReader``, bounded as its
/// `PairingRequest` says, on the reader's clock.
struct EmulatedPairing: Sendable {
    let reader: EmulatedReader
    let host: EmulatedHost
    let request: PairingRequest
    let readerDescription: String

    /// Pairs within the request's timeout; a pairing that fails, times out or is
    /// cancelled leaves no bond and no pairing under way.
    func run() async throws(PairingError) -> PairingOutcome {
        let deadline = reader.clock.elapsed() + request.timeout
        let outcome = await reader.clock.run(until: deadline) { await self.steps() }
        let result: Result<PairingOutcome, PairingError> =
            switch outcome {
            case .finished(let result): result
            case .timedOut:
                .failure(PairingError(.timedOut, "\(readerDescription) did not finish pairing within \(request.timeout)"))
            case .cancelled: .failure(PairingError(.cancelled, "the pairing with \(readerDescription) was cancelled"))
            }
        if case .failure = result { await reader.abandonPairing(host: host.address) }
        return try result.get()
    }

    /// The pairing's steps: the request, the passkey if the reader displays one, the bond.
    private func steps() async -> Result<PairingOutcome, PairingError> {
        do throws(PairingError) {
            let method = try await reader.beginPairing(host: host.address)
            let passkey: Passkey? = method == .passkeyEntry ? try await askPasskey() : nil
            let key = try await reader.completePairing(host: host.address, passkey: passkey)
            await host.keep(key, for: reader)
            return .success(.paired(method))
        } catch {
            return .failure(error)
        }
    }

    private func askPasskey() async throws(PairingError) -> Passkey {
        guard let entry = request.passkey else {
            throw PairingError(.passkeyNeeded, "\(readerDescription) displays a passkey to type, and nobody can be asked")
        }
        let prompt = PasskeyPrompt(reader: readerDescription, timeLimit: request.passkeyTimeLimit)
        switch await reader.clock.run(until: reader.clock.elapsed() + request.passkeyTimeLimit, { await entry(prompt) }) {
        case .finished(let passkey?): return passkey
        case .finished(nil): throw PairingError(.passkeyDeclined, "nobody gave the passkey \(readerDescription) displays")
        case .timedOut: throw PairingError(.passkeyTimedOut, "no passkey was typed within \(request.passkeyTimeLimit)")
        case .cancelled: throw PairingError(.cancelled, "the pairing with \(readerDescription) was cancelled")
        }
    }
}
