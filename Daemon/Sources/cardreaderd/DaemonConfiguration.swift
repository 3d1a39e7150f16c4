import FoundationEssentials

/// What `--config FILE` says, in JSON: the readers and how they are reached, the socket,
/// who may call and who may have card data, the TCP listener and the metrics endpoint.
/// Every key is optional; see Docs/cardreaderd.md for an example.
struct DaemonConfiguration: Codable, Sendable, Equatable {
    /// A Bluetooth reader the daemon holds.
    struct Reader: Codable, Sendable, Equatable {
        /// The name clients use, e.g. `lane-1`.
        var name: String
        /// The reader: a name prefix (`VPOS3356-1A2B`) or an address.
        var reader: String
        /// The adapter it is reached on, e.g. `hci1`; by default the first powered one.
        var adapter: String?
    }

    /// The Unix socket.
    struct Socket: Codable, Sendable, Equatable {
        /// Default `/run/cardreaderd/cardreaderd.sock`.
        var path: String?
        /// The group that owns the socket (its members can connect, mode permitting).
        var group: String?
        /// The socket's mode, in octal, e.g. `"0660"` (the default).
        var mode: String?
    }

    /// The TCP listener: mutual TLS only, never plaintext.
    struct TCP: Codable, Sendable, Equatable {
        /// `HOST:PORT`, e.g. `0.0.0.0:8443`.
        var address: String
        /// The server's certificate chain and key (PEM files).
        var certificate: String
        var privateKey: String
        /// The CA that signs the clients' certificates (PEM): only those are accepted.
        var clientCA: String
    }

    /// The emulated readers, instead of (or beside) Bluetooth ones.
    struct EmulatedFleet: Codable, Sendable, Equatable {
        var count: Int
        /// Card names or card files, one per reader in turn; the built-in test Visa by default.
        var cards: [String]?
        /// Scenario steps every reader follows.
        var scenario: [String]?
    }

    var readers: [Reader]?
    var emulatedFleet: EmulatedFleet?
    var socket: Socket?
    /// Who may call: user names (and TLS clients' certificate subjects). The daemon's own
    /// user and root always may.
    var users: [String]?
    /// Who may also have card data unmasked and send APDUs.
    var reveal: [String]?
    var tcp: TCP?
    /// `HOST:PORT` of the Prometheus endpoint (`GET /metrics`); none by default.
    var metrics: String?
    /// Seconds between keep-alives on an idle link (a lane's 240 by default; 0: none).
    var keepAliveSeconds: Int?
    /// How many updates a WatchReaders subscriber may fall behind before its oldest are
    /// dropped (and counted): 256 by default.
    var subscriberBuffer: Int?

    /// Reads `path`; fails with what is wrong, and where.
    static func load(from path: String) throws -> DaemonConfiguration {
        guard FileManager.default.fileExists(atPath: path) else { throw DaemonError.configuration("\(path): no such file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DaemonError.configuration("\(path): not readable by this user")
        }
        do {
            return try JSONDecoder().decode(DaemonConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw DaemonError.configuration("\(path): \(Self.describe(error))")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + context.debugDescription
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): return at(context)
        case .keyNotFound(let key, let context): return at(context) + " (missing \"\(key.stringValue)\")"
        @unknown default: return "\(error)"
        }
    }
}

/// What stops the daemon from starting, said for the person starting it.
enum DaemonError: Error, CustomStringConvertible {
    case configuration(String)
    case socket(String)
    case alreadyRunning(String)

    var description: String {
        switch self {
        case .configuration(let message): "configuration: \(message)"
        case .socket(let message): "socket: \(message)"
        case .alreadyRunning(let message): message
        }
    }
}
