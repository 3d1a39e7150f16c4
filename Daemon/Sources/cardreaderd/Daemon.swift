import CardReaderKit
import CardReaderKitTesting
import CardReaderService
import FoundationEssentials
import GRPCCore
import GRPCNIOTransportHTTP2
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// The daemon as its configuration makes it: the readers, who may call, the Unix socket
/// (and the TCP listener, when configured), run until SIGTERM or SIGINT.
struct Daemon {
    static let standardSocket = "/run/cardreaderd/cardreaderd.sock"

    let configuration: DaemonConfiguration
    /// The file `configuration` came from, re-read for its users and reveal list on SIGHUP.
    let configurationFile: String?
    let logger: Logger

    func run() async throws {
        if let buffer = configuration.subscriberBuffer, buffer < 1 {
            throw DaemonError.configuration("subscriberBuffer must be at least 1")
        }
        // Before the readers: each takes the metrics factory in effect when it is made.
        let metrics = try configuration.metrics.map { address throws(DaemonError) in try MetricsEndpoint(address: address, logger: logger) }
        let readers = try makeReaders()
        let access = AccessControl(Self.policy(of: configuration))
        let shutdown = DaemonShutdown()
        let service = ReadersService(
            readers: readers, access: access, subscriberBuffer: configuration.subscriberBuffer ?? 256, shutdown: shutdown,
            logger: logger)
        let socketPath = configuration.socket?.path ?? Self.standardSocket
        let socket = try UnixSocket(path: socketPath, mode: try socketMode(), group: try socketGroup())
        defer { socket.remove() }
        let held = HeldReadersFile(besideSocket: socketPath)
        held.write(
            (configuration.readers ?? []).map { .init(name: $0.name, reader: $0.reader, adapter: $0.adapter) },
            lock: socketPath + ".lock")
        defer { held.remove() }

        var unixConfig = HTTP2ServerTransport.Posix.Config.defaults
        unixConfig.channelDebuggingCallbacks.onAcceptTCPConnection = PeerIdentity.recordPeer(of:)
        unixConfig.channelDebuggingCallbacks.onAcceptHTTP2Stream = PeerIdentity.injectPeer(into:)
        let unixServer = GRPCServer(
            transport: HTTP2ServerTransport.Posix(
                listeningSocketDescriptor: Int(socket.descriptor), transportSecurity: .plaintext, config: unixConfig),
            services: [service], interceptors: [UnixCallerInterceptor()])
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: ReadersLifecycle(readers: readers, socketPath: socketPath, logger: logger)),
            .init(service: GRPCServerService(server: unixServer, shutdown: shutdown)),
        ]
        if let tcp = configuration.tcp {
            services.append(.init(service: GRPCServerService(server: try makeTCPServer(tcp, service: service), shutdown: shutdown)))
        }
        if let metrics { services.append(.init(service: metrics)) }
        services.append(.init(service: AccessReloader(file: configurationFile, access: access, logger: logger)))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        logger.notice("stopped")
    }

    private func makeReaders() throws(DaemonError) -> HeldReaders {
        var configurationOfReaders = CardReader.Configuration.lane
        if let seconds = configuration.keepAliveSeconds {
            configurationOfReaders.keepAliveInterval = seconds > 0 ? .seconds(seconds) : nil
        }
        var held: [HeldReader] = []
        if let fleet = configuration.emulatedFleet {
            guard (1...64).contains(fleet.count) else { throw .configuration("emulatedFleet.count takes 1…64 readers") }
            let scenario: EmulatorScenario
            do {
                scenario = try EmulatorScenario(parsing: fleet.scenario ?? [])
            } catch {
                throw .configuration("emulatedFleet.scenario: \(error)")
            }
            let cards = try (fleet.cards ?? ["visa-test"]).map { name throws(DaemonError) in try Self.card(named: name) }
            for index in 1...fleet.count {
                var readerConfiguration = EmulatedReaderConfiguration()
                readerConfiguration.name = EmulatedReaderFleet.memberName(index)
                readerConfiguration.info.serialNumber = "EMU" + String(100_000 + index).dropFirst()
                let emulator = EmulatedReader(card: cards[(index - 1) % cards.count], scenario: scenario, configuration: readerConfiguration)
                let reader = CardReader(
                    connector: EmulatedReaderConnector(reader: emulator), configuration: configurationOfReaders,
                    logger: logger)
                held.append(HeldReader(name: readerConfiguration.name ?? "", summary: "emulated", reader: reader, logger: logger))
            }
        }
        for entry in configuration.readers ?? [] {
            let connector = BlueZReaderConnector(reader: entry.reader, adapter: entry.adapter, logger: logger)
            let reader = CardReader(connector: connector, configuration: configurationOfReaders, logger: logger)
            held.append(HeldReader(name: entry.name, summary: connector.readerDescription, reader: reader, logger: logger))
        }
        guard !held.isEmpty else {
            throw .configuration("no readers: name them in the configuration's \"readers\", or run with --emulated-fleet N")
        }
        let names = held.map(\.name)
        if let repeated = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw .configuration("two readers are named \(repeated)")
        }
        return HeldReaders(held)
    }

    /// The configuration's users, and always the daemon's own user and root.
    static func policy(of configuration: DaemonConfiguration) -> AccessPolicy {
        let own = [PeerCredentials.userName(of: getuid()), PeerCredentials.userName(of: 0)]
        return AccessPolicy(allowed: Set((configuration.users ?? []) + own), revealing: Set(configuration.reveal ?? []))
    }

    private func socketMode() throws(DaemonError) -> mode_t {
        guard let text = configuration.socket?.mode else { return 0o660 }
        guard let mode = mode_t(text, radix: 8), mode <= 0o777 else {
            throw .configuration("socket.mode \(text) is not an octal mode such as \"0660\"")
        }
        return mode
    }

    private func socketGroup() throws(DaemonError) -> gid_t? {
        guard let name = configuration.socket?.group else { return nil }
        guard let group = getgrnam(name) else { throw .configuration("socket.group: no group named \(name)") }
        return group.pointee.gr_gid
    }

    private func makeTCPServer(
        _ tcp: DaemonConfiguration.TCP, service: ReadersService
    ) throws(DaemonError) -> GRPCServer<HTTP2ServerTransport.Posix> {
        guard let colon = tcp.address.lastIndex(of: ":"), let port = Int(tcp.address[tcp.address.index(after: colon)...]) else {
            throw .configuration("tcp.address \(tcp.address) is not HOST:PORT")
        }
        let host = String(tcp.address[..<colon])
        let transport = HTTP2ServerTransport.Posix(
            address: .ipv4(host: host, port: port),
            transportSecurity: .mTLS(
                certificateChain: [.file(path: tcp.certificate, format: .pem)], privateKey: .file(path: tcp.privateKey, format: .pem)
            ) { tls in
                // Only clients whose certificate the shop's CA signed; never the system's roots.
                tls.trustRoots = .certificates([.file(path: tcp.clientCA, format: .pem)])
                tls.clientCertificateVerification = .noHostnameVerification
            },
            config: .defaults { config in
                // A client that vanishes without a word ends its lease within a minute.
                config.connection.keepalive.time = .seconds(30)
                config.connection.keepalive.timeout = .seconds(10)
            })
        return GRPCServer(transport: transport, services: [service], interceptors: [TLSCallerInterceptor()])
    }

    private static func card(named name: String) throws(DaemonError) -> EmulatedCard {
        if let card = EmulatedCard.builtIn(named: name) { return card }
        do {
            return try EmulatedCard(contentsOf: URL(filePath: name))
        } catch {
            throw .configuration("card \(name): \(error)")
        }
    }
}
