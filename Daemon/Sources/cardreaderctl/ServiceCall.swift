import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// One command's call to the service: a client on its socket, the call cancelled by
/// Ctrl-C or SIGTERM (the service then sends CANCEL to the reader), and a failure printed
/// as readerctl prints its own (`cardreaderctl: what happened`, then `  fix: what to do`),
/// ending the process with readerctl's exit status for its reason.
enum ServiceCall {
    /// The statuses cardreaderctl ends with.
    static let exitStatuses: [ExitStatus] = [
        .success, .unreadableInput, .timedOut, .badSwipe, .noCard, .linkLost, .refused, .firmwareNotUpdated,
        .invalidFirmwareImage, .linkNotSecure, .usage, .cancelled,
    ]

    typealias Client = Cardreader_V1_Readers.Client<HTTP2ClientTransport.Posix>

    /// Runs `body` with a client of the service on `options.socket`.
    static func perform<Value: Sendable>(
        _ options: ServiceOptions, _ body: @escaping @Sendable (Client) async throws -> Value
    ) async throws -> Value {
        let transport = try HTTP2ClientTransport.Posix(target: .unixDomainSocket(path: options.socket), transportSecurity: .plaintext)
        let work = Task {
            try await withGRPCClient(transport: transport) { client in try await body(Cardreader_V1_Readers.Client(wrapping: client)) }
        }
        let signals = Task {
            for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                work.cancel()
                return signal == .sigterm ? Int32(143) : 130
            }
            return Int32(130)
        }
        let result = await work.result
        signals.cancel()
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            if work.isCancelled {
                let code = await signals.value
                report("cancelled: the service told the reader (CANCEL)", fix: nil, identifier: "cancelled", json: options.json)
                throw ExitCode(code)
            }
            throw failure(error, json: options.json)
        }
    }

    /// The exit code for `error`, once reported.
    static func failure(_ error: any Error, json: Bool) -> ExitCode {
        guard let rpc = error as? RPCError else {
            report("\(error)", fix: nil, identifier: "failed", json: json)
            return ExitCode(ExitStatus.refused.rawValue)
        }
        guard let status = try? rpc.unpackGoogleRPCStatus(), let info = status.details.first?.errorInfo else {
            // No ErrorInfo: not the service answering (nothing on the socket, or not allowed in).
            let unreachable = rpc.code == .unavailable
            report(
                unreachable ? "cannot reach cardreaderd: \(rpc.message)" : "\(rpc.code): \(rpc.message)",
                fix: unreachable ? "is cardreaderd running? its socket is --socket (default /run/cardreaderd/cardreaderd.sock)" : nil,
                identifier: unreachable ? "service-unreachable" : "\(rpc.code)", json: json)
            return ExitCode(ExitStatus.linkLost.rawValue)
        }
        report(status.message, fix: info.metadata["fix"], identifier: info.reason, json: json)
        return ExitCode(exitStatus(reason: info.reason, link: info.metadata["link"], code: rpc.code).rawValue)
    }

    /// readerctl's exit status for a reason the service gave.
    static func exitStatus(reason: String, link: String?, code: RPCError.Code) -> ExitStatus {
        switch reason {
        case "unknown-reader", "invalid-request": return .usage
        case "daemon-stopping": return .linkLost
        case "reader-held", "lease-required", "reveal-not-allowed", "user-not-allowed", "unsupported": return .refused
        default: break
        }
        if code == .deadlineExceeded, reason == "cancelled" { return .timedOut }
        let firmware = reason.hasPrefix("firmware-") ? FirmwareUpdateError.Code(rawValue: reason) : nil
        return ExitStatus.of(
            code: firmware == nil ? CardReaderError.Code(rawValue: reason) : .firmwareUpdateFailed, firmware: firmware,
            link: link.map(LinkError.Code.init(rawValue:)))
    }

    /// A failure on standard error, with its fix; with `--json`, also as an object on
    /// standard output (`error`, `message`, `fix`).
    static func report(_ message: String, fix: String?, identifier: String, json: Bool) {
        let text = Array(("cardreaderctl: \(message)\n" + (fix.map { "  fix: \($0)\n" } ?? "")).utf8)
        _ = text.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if json {
            var fields: [String: FieldValue] = ["error": .text(identifier), "message": .text(message)]
            fields["fix"] = fix.map(FieldValue.text)
            Output.print(fields, json: true)
        }
    }
}
