import CPCSCDriverInterface
import GRPCCore
import GRPCProtobuf

/// Why a call to cardreaderd failed, as the driver logs it: the service's reason and fix,
/// never the bytes of an APDU.
package struct DriverFailure: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// Nothing answers on the socket.
        case unreachable
        /// The reader's link is down, or it is not connected yet.
        case linkDown
        /// No card in the slot, or it was removed.
        case noCard
        /// Another client holds the reader.
        case held
        /// The service refused: not allowed, or not valid.
        case refused
        /// The call ran out of time.
        case timedOut
        /// The lease ended before the call.
        case leaseEnded
    }

    package var kind: Kind
    /// What happened, in the service's words when it said.
    package var message: String
    /// The service's reason code, e.g. `reader-held`; empty when it gave none.
    package var reason = ""
    /// What a person can do, when the service said.
    package var fix: String?

    package init(kind: Kind, message: String, reason: String = "", fix: String? = nil) {
        self.kind = kind
        self.message = message
        self.reason = reason
        self.fix = fix
    }

    package var description: String {
        var text = message
        if !reason.isEmpty { text += " (\(reason))" }
        if let fix { text += "; fix: \(fix)" }
        return text
    }

    /// What pcscd is told.
    package var response: PCSCDriverResponse {
        switch kind {
        case .noCard: IFDCode.iccNotPresent
        case .timedOut: IFDCode.responseTimeout
        default: IFDCode.communicationError
        }
    }

    /// What a failed call to the service means for PC/SC, with the service's reason and
    /// fix (its google.rpc.ErrorInfo); a failure without one is the service not answering.
    package init(_ error: any Error) {
        guard let rpc = error as? RPCError else {
            self.init(kind: .unreachable, message: "\(error)")
            return
        }
        guard let status = try? rpc.unpackGoogleRPCStatus(), let info = status.details.first?.errorInfo else {
            let kind: Kind =
                switch rpc.code {
                case .unavailable: .unreachable
                case .deadlineExceeded: .timedOut
                case .cancelled: .leaseEnded
                default: .refused
                }
            self.init(kind: kind, message: "\(rpc.code): \(rpc.message)")
            return
        }
        let kind: Kind =
            switch info.reason {
            case "no-card", "card-removed": .noCard
            case "reader-held": .held
            case "lease-required": .leaseEnded
            case "reader-timed-out", "queue-timed-out": .timedOut
            // The SDK's codes for a reader that cannot take commands now (CardReaderError.Code).
            case "not-connected", "link-lost", "connection-timed-out", "connection-failed", "reader-not-responding",
                "write-failed", "reader-resetting", "reader-updating", "daemon-stopping":
                .linkDown
            default: rpc.code == .unavailable ? .linkDown : .refused
            }
        self.init(kind: kind, message: status.message, reason: info.reason, fix: info.metadata["fix"])
    }
}
