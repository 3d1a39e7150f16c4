import CardReaderService
import GRPCCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Carries each Unix-socket connection's peer, recorded at accept, into its calls: the
/// connection's pipeline keeps it (``Store``), and each HTTP/2 stream on it gets it as
/// request headers (``Injector``), which ``UnixCallerInterceptor`` turns into the call's
/// ``CallerContext``. Headers of those names that a client sent are removed first: only the
/// daemon's own reach the service.
enum PeerIdentity {
    static let userIDHeader = "x-cardreaderd-peer-uid"
    static let processIDHeader = "x-cardreaderd-peer-pid"
    static let headers = [userIDHeader, processIDHeader]

    /// The peer of a connection, held on its pipeline (where it passes everything on).
    final class Store: ChannelInboundHandler, Sendable {
        typealias InboundIn = NIOAny
        let credentials: PeerCredentials?
        init(_ credentials: PeerCredentials?) { self.credentials = credentials }
    }

    /// Puts the connection's peer into a stream's request headers.
    final class Injector: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTP2Frame.FramePayload
        typealias InboundOut = HTTP2Frame.FramePayload

        private let credentials: PeerCredentials?
        private var first = true

        init(_ credentials: PeerCredentials?) { self.credentials = credentials }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .headers(var headers) = unwrapInboundIn(data) else {
                context.fireChannelRead(data)
                return
            }
            for name in PeerIdentity.headers { headers.headers.remove(name: name) }
            if first, let credentials {
                headers.headers.add(name: PeerIdentity.userIDHeader, value: String(credentials.userID))
                headers.headers.add(name: PeerIdentity.processIDHeader, value: String(credentials.processID))
            }
            first = false
            context.fireChannelRead(wrapInboundOut(.headers(headers)))
        }
    }

    /// At accept: records the peer's credentials on the connection (none when the kernel
    /// gives none: its calls are refused as unauthenticated).
    @Sendable static func recordPeer(of channel: any Channel) -> EventLoopFuture<Void> {
        PeerCredentials.of(channel).map(Optional.some).recover { _ in nil }.flatMapThrowing { credentials in
            try channel.pipeline.syncOperations.addHandler(Store(credentials))
        }
    }

    /// For each stream: the connection's peer, as headers.
    @Sendable static func injectPeer(into stream: any Channel) -> EventLoopFuture<Void> {
        stream.eventLoop.makeCompletedFuture {
            let credentials = try stream.parent.map { try $0.pipeline.syncOperations.handler(type: Store.self).credentials } ?? nil
            try stream.pipeline.syncOperations.addHandler(Injector(credentials), position: .first)
        }
    }
}

/// Makes each Unix-socket call's ``CallerContext`` from the peer headers ``PeerIdentity``
/// put there, and its deadline from `grpc-timeout`.
struct UnixCallerInterceptor: ServerInterceptor {
    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>, context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        var request = request
        var context = context
        let value = { (name: String) in request.metadata[stringValues: name].first(where: { _ in true }) }
        if let uid = value(PeerIdentity.userIDHeader).flatMap(UInt32.init),
            let pid = value(PeerIdentity.processIDHeader).flatMap(Int32.init)
        {
            let caller = Caller(identity: .localUser(name: PeerCredentials.userName(of: uid), uid: uid, processID: pid))
            context.transportSpecific = CallerContext(caller: caller, deadline: Self.deadline(of: request.metadata))
        } else {
            context.transportSpecific = nil
        }
        for name in PeerIdentity.headers { request.metadata.removeAllValues(forKey: name) }
        return try await next(request, context)
    }

    static func deadline(of metadata: Metadata) -> ContinuousClock.Instant? {
        metadata[stringValues: "grpc-timeout"].first(where: { _ in true }).flatMap {
            CallerContext.deadline(grpcTimeout: $0, from: .now)
        }
    }
}
