import CPCSCDriverInterface
import CardReaderPCSC
import GRPCCore
import GRPCProtobuf
import Testing

/// The service's failures, as the contract gives them (a google.rpc.Status with one
/// ErrorInfo, domain cardreader.v1: Proto/cardreader/v1/readers.proto), as pcscd is told.
@Suite struct DriverFailureTests {
    static func serviceError(_ code: RPCError.Code, reason: String, fix: String? = nil) -> RPCError {
        var metadata = ["reader": "lane-1"]
        metadata["fix"] = fix
        return RPCError(
            GoogleRPCStatus(
                code: code, message: "lane-1: \(reason)",
                details: [.errorInfo(reason: reason, domain: "cardreader.v1", metadata: metadata)]))
    }

    @Test(arguments: [
        (RPCError.Code.aborted, "card-removed", DriverFailure.Kind.noCard, IFDCode.iccNotPresent),
        (.failedPrecondition, "no-card", .noCard, IFDCode.iccNotPresent),
        (.failedPrecondition, "reader-held", .held, IFDCode.communicationError),
        (.unavailable, "link-lost", .linkDown, IFDCode.communicationError),
        (.unavailable, "reader-resetting", .linkDown, IFDCode.communicationError),
        (.deadlineExceeded, "reader-timed-out", .timedOut, IFDCode.responseTimeout),
        (.permissionDenied, "reveal-not-allowed", .refused, IFDCode.communicationError),
    ])
    func theServicesReasonDecides(code: RPCError.Code, reason: String, kind: DriverFailure.Kind, response: PCSCDriverResponse) {
        let failure = DriverFailure(Self.serviceError(code, reason: reason, fix: "do this"))
        #expect(failure.kind == kind)
        #expect(failure.response == response)
        #expect(failure.description == "lane-1: \(reason) (\(reason)); fix: do this")
    }

    @Test func aServiceThatDoesNotAnswerIsUnreachable() {
        let failure = DriverFailure(RPCError(code: .unavailable, message: "Could not establish a connection"))
        #expect(failure.kind == .unreachable)
        #expect(failure.response == IFDCode.communicationError)
        #expect(failure.reason.isEmpty)
    }
}
