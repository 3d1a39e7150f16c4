import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// The daemon's metrics for Prometheus, on an opt-in local endpoint: `GET /metrics` in the
/// text exposition format; anything else is 404.
struct MetricsEndpoint: Service {
    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    /// Serves `address` (`HOST:PORT`); swift-metrics' factory becomes Prometheus's.
    init(address: String, logger: Logger) throws(DaemonError) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            throw .configuration("metrics \(address) is not HOST:PORT")
        }
        host = String(address[..<colon])
        self.port = port
        registry = PrometheusCollectorRegistry()
        self.logger = logger
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }

    func run() async throws {
        let registry = registry
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(registry: registry))
                }
            }
        logger.notice("metrics", metadata: ["endpoint": "http://\(host):\(port)/metrics"])
        try await withGracefulShutdownHandler {
            try await server.channel.closeFuture.get()
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    private final class Responder: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let registry: PrometheusCollectorRegistry
        init(registry: PrometheusCollectorRegistry) { self.registry = registry }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let request) = unwrapInboundIn(data) else { return }
            let found = request.method == .GET && request.uri.split(separator: "?").first == "/metrics"
            let body = found ? registry.emitToBuffer() : Array("not found: GET /metrics\n".utf8)
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: found ? "text/plain; version=0.0.4" : "text/plain")
            headers.add(name: "content-length", value: String(body.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: found ? .ok : .notFound, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
