import CardReaderService
import GRPCCore
import GRPCNIOTransportHTTP2
import X509

/// Makes each TCP call's ``CallerContext`` from the client's certificate (the listener
/// takes mutual TLS only, so every connection has one): its subject stands in for a user
/// in the daemon's lists. Peer headers a client sent are dropped: on TCP nothing vouches
/// for them.
struct TLSCallerInterceptor: ServerInterceptor {
    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>, context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        var request = request
        var context = context
        for name in PeerIdentity.headers { request.metadata.removeAllValues(forKey: name) }
        if let certificate = (context.transportSpecific as? HTTP2ServerTransport.Posix.Context)?.peerCertificate {
            let caller = Caller(identity: .certificate(subject: "\(certificate.subject)"))
            context.transportSpecific = CallerContext(caller: caller, deadline: UnixCallerInterceptor.deadline(of: request.metadata))
        } else {
            context.transportSpecific = nil
        }
        return try await next(request, context)
    }
}
