import CardReaderContract
import CardReaderKit
import GRPCCore
import GRPCProtobuf
import SwiftProtobuf

/// Pairing and bonds: the daemon's host and its readers.
extension ReadersService {
    package func pair(request: Cardreader_V1_PairRequest, context: ServerContext) async throws -> Cardreader_V1_PairResponse {
        _ = try caller(of: context)
        let reader = try readers.named(request.reader)
        guard let connector = reader.reader.connector as? any PairingReaderConnector else {
            throw ServiceFailure.unsupported("this reader pairs no host", reader: reader.name)
        }
        let typed = request.passkey.isEmpty ? nil : Passkey(digits: request.passkey)
        if !request.passkey.isEmpty, typed == nil {
            throw ServiceFailure.invalidArgument("a passkey is six digits", reader: reader.name)
        }
        let entry: PasskeyEntry? = typed.map { passkey in { @Sendable _ in passkey } }
        let outcome: PairingOutcome
        do throws(PairingError) {
            outcome = try await connector.pair(PairingRequest(passkey: entry))
        } catch {
            throw ServiceFailure.pairing(error, reader: reader.name)
        }
        return .with {
            switch outcome {
            case .alreadyBonded: $0.method = "already-paired"
            case .paired(.justWorks): $0.method = "just-works"
            case .paired(.passkeyEntry): $0.method = "passkey-entry"
            }
        }
    }

    package func unpair(request: Cardreader_V1_UnpairRequest, context: ServerContext) async throws -> Cardreader_V1_UnpairResponse {
        _ = try caller(of: context)
        let reader = try readers.named(request.reader)
        guard let connector = reader.reader.connector as? any PairingReaderConnector else {
            throw ServiceFailure.unsupported("this reader pairs no host", reader: reader.name)
        }
        do throws(PairingError) {
            try await connector.unpair()
        } catch {
            throw ServiceFailure.pairing(error, reader: reader.name)
        }
        return Cardreader_V1_UnpairResponse()
    }

    package func listBonds(request: Cardreader_V1_ListBondsRequest, context: ServerContext) async throws -> Cardreader_V1_ListBondsResponse {
        _ = try caller(of: context)
        var response = Cardreader_V1_ListBondsResponse()
        for reader in readers.all {
            guard let connector = reader.reader.connector as? any PairingReaderConnector,
                (try? await connector.holdsBond()) == true
            else { continue }
            response.bonds.append(.with {
                $0.reader = reader.name
                $0.name = connector.readerDescription
            })
        }
        return response
    }
}
