import CardReaderKit
import ReaderProtocol

/// A reader played by the test, frame by frame: it sees each command the host writes and
/// answers (or not) as the test says. Every wait is bounded in real time.
actor ScriptedReader {
    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var description: String { "timed out waiting for \(what)" }
    }

    let mtu: Int
    private var decoder = FrameDecoder()
    private var commands: [ReaderCommand] = []
    private var commandWaiters: [CheckedContinuation<Void, Never>] = []
    private(set) var packetSizes: [Int] = []
    private var continuation: AsyncStream<LinkInbound>.Continuation?
    private var closed = false

    init(mtu: Int = 23) {
        self.mtu = mtu
    }

    nonisolated var connector: ScriptedConnector { ScriptedConnector(reader: self) }

    func makeLink() -> ScriptedLink {
        let (stream, continuation) = AsyncStream.makeStream(of: LinkInbound.self)
        self.continuation = continuation
        closed = false
        return ScriptedLink(reader: self, inbound: stream, maximumWriteLength: mtu - 3)
    }

    func hostWrote(_ packet: [UInt8]) throws(LinkError) {
        guard !closed else { throw LinkError(code: "not-connected", detail: "closed") }
        packetSizes.append(packet.count)
        decoder.decode(packet) { event in
            if case .frame(let frame, _) = event, let command = try? ReaderCommand(frame: frame) {
                commands.append(command)
                wakeCommandWaiters()
            }
        }
    }

    func hostClosed() {
        closed = true
        continuation?.finish()
    }

    /// The next command the host sent, waiting up to `limit` of real time for it.
    func nextCommand(within limit: Duration = .seconds(10)) async throws -> ReaderCommand {
        if commands.isEmpty {
            let alarm = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                self.wakeCommandWaiters()
            }
            await withCheckedContinuation { commandWaiters.append($0) }
            alarm.cancel()
        }
        guard !commands.isEmpty else { throw Timeout(what: "a command from the host") }
        return commands.removeFirst()
    }

    private func wakeCommandWaiters() {
        for waiter in commandWaiters { waiter.resume() }
        commandWaiters.removeAll()
    }

    /// Commands received but not yet taken with ``nextCommand()``.
    var pendingCommands: [ReaderCommand] { commands }

    /// Sends a frame as notifications of at most MTU − 3 bytes.
    func send(_ frame: Frame) throws {
        let bytes = try frame.encoded()
        for start in stride(from: 0, to: bytes.count, by: mtu - 3) {
            continuation?.yield(.notification(Array(bytes[start..<min(start + mtu - 3, bytes.count)])))
        }
    }

    func answer(_ code: CommandCode, _ status: ReaderStatus, _ body: ResponseBody = .empty) throws {
        try send(ReaderResponse(code: code, status: status, body: body).frame)
    }

    func sendRaw(_ bytes: [UInt8]) {
        continuation?.yield(.notification(bytes))
    }

    func drop(_ reason: LinkDropReason) {
        continuation?.yield(.dropped(reason))
        continuation?.finish()
        closed = true
    }
}

struct ScriptedLink: ReaderLink {
    let reader: ScriptedReader
    let inbound: AsyncStream<LinkInbound>
    let maximumWriteLength: Int

    func write(_ packet: [UInt8]) async throws(LinkError) {
        try await reader.hostWrote(packet)
    }

    func close() async {
        await reader.hostClosed()
    }
}

struct ScriptedConnector: ReaderConnector {
    let reader: ScriptedReader
    var readerDescription: String { "scripted reader" }

    func connect() async throws(LinkError) -> any ReaderLink {
        await reader.makeLink()
    }
}

/// A connector whose link never comes up, for connection deadlines.
struct UnreachableConnector: ReaderConnector {
    var readerDescription: String { "unreachable reader" }

    func connect() async throws(LinkError) -> any ReaderLink {
        try? await Task.sleep(for: .seconds(3600))  // ends at once when the connect is cancelled
        throw LinkError(code: "cancelled", detail: "connection attempt cancelled")
    }
}
