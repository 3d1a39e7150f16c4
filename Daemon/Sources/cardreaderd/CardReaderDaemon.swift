import ArgumentParser
import CardReaderKit
import CardReaderKitTesting
import CardReaderService
import FoundationEssentials
import GRPCCore
import GRPCNIOTransportHTTP2
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

@main
struct CardReaderDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardreaderd",
        abstract: "Hold the shop's card readers and serve them to every point-of-sale process, over gRPC.",
        discussion: """
            Serves cardreader.v1.Readers (Proto/cardreader/v1/readers.proto) on a Unix socket, \
            /run/cardreaderd/cardreaderd.sock by default, to the users the configuration names \
            (the daemon's own user and root always), each connection's user read from the \
            kernel (SO_PEERCRED). Card data is masked unless the caller is in the reveal list \
            and asks. Each reader is held as a lane: kept connected all day, reconnected after \
            every drop. TCP, when configured, takes mutual TLS only.

            Without Bluetooth: --emulated-fleet N holds N emulated readers, VPOS3356-E001 …

            SIGTERM or Ctrl-C stops it gracefully: calls under way are cancelled at the reader, \
            leases end with their cards powered off, clients see the daemon stopping. SIGHUP \
            re-reads the configuration's users and reveal list, the readers left connected.

            `cardreaderd pcsc install` makes the readers' chip slots PC/SC readers (pcscd).
            """,
        subcommands: [PCSCCommand.self])

    @OptionGroup var service: ServiceLocation

    @Option(help: ArgumentHelp("Hold N emulated readers, VPOS3356-E001 …, instead of Bluetooth ones (1-64).", valueName: "n"))
    var emulatedFleet: Int?

    @Option(help: ArgumentHelp("The emulated readers' cards, in turn: a built-in card (visa-test, mastercard-test, visa-swipe-only) or a card file; repeat for each reader.", valueName: "card"))
    var card: [String] = []

    @Option(help: ArgumentHelp("Scenario steps every emulated reader follows, comma-separated (readerctl scenarios lists them).", valueName: "steps"))
    var scenario: String?

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error.", valueName: "level"))
    var logLevel: String = "info"

    func validate() throws {
        if let emulatedFleet, !(1...64).contains(emulatedFleet) { throw ValidationError("--emulated-fleet takes 1…64 readers") }
        if !card.isEmpty || scenario != nil, emulatedFleet == nil { throw ValidationError("--card and --scenario are for --emulated-fleet") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: trace, debug, info, notice, warning or error") }
    }

    func run() async throws {
        let configuration: DaemonConfiguration
        do {
            configuration = try effectiveConfiguration()
        } catch let error as DaemonError {
            // Before logging is set up: said plainly, on standard error.
            let text = Array("cardreaderd: \(error)\n".utf8)
            _ = text.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            throw ExitCode(error.exitCode)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return handler
        }
        let logger = Logger(label: "cardreaderd")
        do {
            try await Daemon(configuration: configuration, configurationFile: service.config, logger: logger).run()
        } catch let error as DaemonError {
            logger.critical("\(error)")
            throw ExitCode(error.exitCode)
        }
    }

    /// The configuration file's, with the command line's options over it.
    private func effectiveConfiguration() throws -> DaemonConfiguration {
        var configuration = try service.config.map(DaemonConfiguration.load(from:)) ?? DaemonConfiguration()
        if let emulatedFleet {
            configuration.emulatedFleet = .init(
                count: emulatedFleet, cards: card.isEmpty ? nil : card,
                scenario: scenario.map { $0.split(separator: ",").map(String.init) })
            configuration.readers = nil
        }
        if let socket = service.socket { configuration.socket = .init(path: socket, group: configuration.socket?.group, mode: configuration.socket?.mode) }
        return configuration
    }
}

/// The daemon's configuration file and socket: the options of `cardreaderd` and of the
/// commands under it (`pcsc install` reaches the daemon they name).
struct ServiceLocation: ParsableArguments {
    @Option(help: ArgumentHelp("The configuration file (JSON): readers, socket, users, reveal list, TCP, metrics.", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("The daemon's Unix socket, instead of the configuration's (default /run/cardreaderd/cardreaderd.sock).", valueName: "path"))
    var socket: String?
}

extension DaemonError {
    /// 2 for a configuration or socket that cannot serve, 3 when another daemon runs.
    var exitCode: Int32 {
        switch self {
        case .configuration, .socket: 2
        case .alreadyRunning: 3
        }
    }
}
