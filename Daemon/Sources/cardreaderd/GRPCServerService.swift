import CardReaderService
import GRPCCore
import ServiceLifecycle

/// A gRPC server as a service of the daemon's group: it serves until the group shuts down
/// gracefully (SIGTERM), then stops taking calls and lets those under way end (their RPC
/// cancellation fires, which cancels each one's reader command).
struct GRPCServerService<Transport: ServerTransport>: Service {
    let server: GRPCServer<Transport>
    let shutdown: DaemonShutdown

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.serve()
        } onGracefulShutdown: {
            shutdown.begin()
            server.beginGracefulShutdown()
        }
    }
}
