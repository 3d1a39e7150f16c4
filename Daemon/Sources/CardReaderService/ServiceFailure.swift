import CardReaderKit
import GRPCCore
import GRPCProtobuf

/// A call's failure as a client sees it: a gRPC status, and one google.rpc.ErrorInfo in
/// domain `cardreader.v1` whose reason is the SDK's stable code (or the daemon's own), with
/// the reader, the reader's status byte, the card's status word and the fix in its metadata.
package enum ServiceFailure {
    /// The ErrorInfo's domain.
    package static let domain = "cardreader.v1"

    /// `error`, as the SDK reported it for `reader`. A cancellation after the caller's
    /// deadline (`pastDeadline`) is `DEADLINE_EXCEEDED`.
    package static func from(_ error: CardReaderError, reader: String, pastDeadline: Bool = false) -> GoogleRPCStatus {
        var metadata = ["reader": reader]
        if let fix = error.fix { metadata["fix"] = fix }
        if let status = error.readerStatus { metadata["reader_status"] = "0x" + hexDigits(status.rawValue) }
        if let word = error.statusWord { metadata["status_word"] = hexDigits(word.sw1) + hexDigits(word.sw2) }
        if let command = error.command { metadata["command"] = command.commandName ?? "\(command)" }
        if let link = error.link { metadata["link"] = link.code.rawValue }
        let code: RPCError.Code = error.code == .cancelled && pastDeadline ? .deadlineExceeded : rpcCode(for: error)
        return status(code, reason: error.identifier, message: "\(reader): \(error)", metadata: metadata)
    }

    /// No reader of that name: the names the daemon holds are in the message.
    package static func unknownReader(_ name: String, known: [String]) -> GoogleRPCStatus {
        status(
            .notFound, reason: "unknown-reader",
            message: "no reader named \(name.isEmpty ? "(none given)" : name): the daemon holds \(known.joined(separator: ", "))",
            metadata: ["reader": name, "fix": "name one of the readers ListReaders returns"])
    }

    /// Another client holds the reader's lease.
    package static func readerHeld(_ reader: String, by holder: Caller) -> GoogleRPCStatus {
        status(
            .failedPrecondition, reason: "reader-held", message: "\(reader) is held by \(holder) for a chip session",
            metadata: ["reader": reader, "held_by": holder.principal, "fix": "wait for its session to end, or pass its lease"])
    }

    /// A chip-session command without the reader's lease.
    package static func leaseRequired(_ reader: String, command: String) -> GoogleRPCStatus {
        status(
            .failedPrecondition, reason: "lease-required",
            message: "\(command) on \(reader) needs the reader's lease",
            metadata: ["reader": reader, "fix": "open Hold on the reader and pass the lease id it returns"])
    }

    /// The caller asked for what only the reveal allow-list may have.
    package static func revealRefused(_ reader: String, to caller: Caller, what: String) -> GoogleRPCStatus {
        status(
            .permissionDenied, reason: "reveal-not-allowed", message: "\(caller) may not have \(what)",
            metadata: [
                "reader": reader, "fix": "add \(caller.principal) to the reveal list of cardreaderd's configuration, if it must",
            ])
    }

    /// The caller's identity is not among the daemon's users.
    package static func notAllowed(_ caller: Caller) -> GoogleRPCStatus {
        status(
            .permissionDenied, reason: "user-not-allowed", message: "\(caller) is not among cardreaderd's users",
            metadata: ["fix": "add \(caller.principal) to the users of cardreaderd's configuration"])
    }

    /// A call whose connection carried no identity (a transport the daemon did not set up).
    package static let unauthenticated = status(
        .unauthenticated, reason: "no-identity", message: "the connection carries no identity", metadata: [:])

    /// A request the daemon cannot carry out as asked.
    package static func invalidArgument(_ message: String, reader: String) -> GoogleRPCStatus {
        status(.invalidArgument, reason: "invalid-request", message: "\(reader): \(message)", metadata: ["reader": reader])
    }

    /// What this daemon's readers cannot do (pairing an emulated reader).
    package static func unsupported(_ message: String, reader: String) -> GoogleRPCStatus {
        status(.unimplemented, reason: "unsupported", message: "\(reader): \(message)", metadata: ["reader": reader])
    }

    /// The daemon is shutting down: the call ended before it could.
    package static func shuttingDown(_ reader: String) -> GoogleRPCStatus {
        status(
            .unavailable, reason: "daemon-stopping", message: "cardreaderd is stopping: the call was cancelled at \(reader)",
            metadata: ["reader": reader, "fix": "call again once cardreaderd is back"])
    }

    private static func status(
        _ code: RPCError.Code, reason: String, message: String, metadata: [String: String]
    ) -> GoogleRPCStatus {
        GoogleRPCStatus(code: code, message: message, details: .errorInfo(reason: reason, domain: domain, metadata: metadata))
    }

    /// The gRPC code a client's retry logic reads: `UNAVAILABLE` for the link (try again),
    /// `FAILED_PRECONDITION` for the reader's or the card's state (someone must act),
    /// `ABORTED` for what the cardholder can simply do again, `DEADLINE_EXCEEDED` for
    /// nobody acting in time.
    private static func rpcCode(for error: CardReaderError) -> RPCError.Code {
        if let firmware = error.firmwareUpdate {
            switch firmware.code {
            case .invalidImage, .olderImage, .versionsNotComparable, .securityDowngrade: return .failedPrecondition
            case .batteryTooLow, .batteryUnknown, .refused, .readerNeedsPairing: return .failedPrecondition
            case .linkLost, .readerDidNotReturn, .noAnswer: return .unavailable
            case .cancelled: return .cancelled
            default: return .aborted
            }
        }
        switch error.code {
        case .notConnected, .connectionTimedOut, .connectionFailed, .linkLost, .writeFailed, .readerNotResponding:
            return .unavailable
        case .readerTimedOut, .queueTimedOut, .cardholderTimeout: return .deadlineExceeded
        case .cancelled: return .cancelled
        case .badSwipe, .cardRemoved, .readerBusy, .cardNotResponding: return .aborted
        case .invalidRequest: return .invalidArgument
        case .malformedResponse, .invalidCardData: return .internalError
        default: return .failedPrecondition
        }
    }

    /// Two upper-case hex digits, e.g. `6A`.
    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}

extension ServiceFailure {
    /// A pairing that failed, with its code and fix.
    package static func pairing(_ error: PairingError, reader: String) -> GoogleRPCStatus {
        var metadata = ["reader": reader]
        if let fix = error.fix { metadata["fix"] = fix }
        return GoogleRPCStatus(
            code: .failedPrecondition, message: "\(reader): \(error)",
            details: .errorInfo(reason: error.code.rawValue, domain: domain, metadata: metadata))
    }
}
