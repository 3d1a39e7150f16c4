import BLETransport
import CardReaderKit
import ManualClockSteps
import ReaderProtocol

/// A reader played by the test, frame by frame: it sees each command the host writes and
/// answers (or not) as the test says. Every wait is bounded in real time.
///
/// What it sends waits in a queue that the host's inbound stream takes from; the host asks
/// for the next item only once it has handled the previous one, so
/// ``waitUntilHostHasHandledEverything()`` knows when everything sent has been handled.
actor ScriptedReader {
    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var description: String { "timed out waiting for \(what)" }
    }

    let mtu: Int
    /// What the links say of their encryption.
    let security: LinkSecurity
    private var decoder = FrameDecoder()
    private var commands: [ReaderCommand] = []
    private var commandWaiters: [CheckedContinuation<Void, Never>] = []
    private(set) var packetSizes: [Int] = []
    /// Sent but not yet taken by the host; nil ends the stream.
    private var outbox: [LinkInbound?] = []
    private var hostWaiting: CheckedContinuation<LinkInbound?, Never>?
    private var handledWaiters: [CheckedContinuation<Void, Never>] = []
    /// Counts links, so that a stream of an earlier link ends instead of taking items.
    private var linkNumber = 0
    private var closed = false

    init(mtu: Int = 23, security: LinkSecurity = .encrypted) {
        self.mtu = mtu
        self.security = security
    }

    nonisolated var connector: ScriptedConnector { ScriptedConnector(reader: self) }

    func makeLink() -> ScriptedLink {
        linkNumber += 1
        let number = linkNumber
        outbox.removeAll()
        hostWaiting?.resume(returning: nil)
        hostWaiting = nil
        closed = false
        let stream = AsyncStream<LinkInbound> { await self.nextInbound(link: number) }
        return ScriptedLink(reader: self, inbound: stream, maximumWriteLength: mtu - 3, security: security)
    }

    /// The host's inbound stream asks for its next item: it has handled the previous one.
    private func nextInbound(link number: Int) async -> LinkInbound? {
        guard number == linkNumber else { return nil }
        if !outbox.isEmpty { return outbox.removeFirst() }
        for waiter in handledWaiters { waiter.resume() }
        handledWaiters.removeAll()
        return await withCheckedContinuation { hostWaiting = $0 }
    }

    private func deliver(_ item: LinkInbound?) {
        if let waiting = hostWaiting {
            hostWaiting = nil
            waiting.resume(returning: item)
        } else {
            outbox.append(item)
        }
    }

    /// Waits until the host has handled everything sent so far (it waits for more), up to
    /// `limit` of real time.
    func waitUntilHostHasHandledEverything(within limit: Duration = WaitBound.inProcess) async throws {
        guard hostWaiting == nil || !outbox.isEmpty else { return }
        let alarm = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            self.releaseHandledWaiters()
        }
        await withCheckedContinuation { handledWaiters.append($0) }
        alarm.cancel()
        guard hostWaiting != nil, outbox.isEmpty else { throw Timeout(what: "the host to handle what was sent") }
    }

    private func releaseHandledWaiters() {
        for waiter in handledWaiters { waiter.resume() }
        handledWaiters.removeAll()
    }

    func hostWrote(_ packet: [UInt8]) throws(LinkError) {
        guard !closed else { throw LinkError(.notConnected, "closed") }
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
        deliver(nil)
    }

    /// The next command the host sent, waiting up to `limit` of real time for it.
    func nextCommand(within limit: Duration = WaitBound.inProcess) async throws -> ReaderCommand {
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
        sendSplit(try frame.encoded())
    }

    /// Sends bytes as notifications of at most MTU − 3 bytes.
    func sendSplit(_ bytes: [UInt8]) {
        for start in stride(from: 0, to: bytes.count, by: mtu - 3) {
            deliver(.notification(Array(bytes[start..<min(start + mtu - 3, bytes.count)])))
        }
    }

    func answer(_ code: CommandCode, _ status: ReaderStatus, _ body: ResponseBody = .empty) throws {
        try send(ReaderResponse(code: code, status: status, body: body).frame)
    }

    /// Sends one notification.
    func sendRaw(_ bytes: [UInt8]) {
        deliver(.notification(bytes))
    }

    func drop(_ reason: LinkError) {
        deliver(.dropped(reason))
        deliver(nil)
        closed = true
    }
}

struct ScriptedLink: ReaderLink {
    let reader: ScriptedReader
    let inbound: AsyncStream<LinkInbound>
    let maximumWriteLength: Int
    let security: LinkSecurity

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
        throw LinkError(.cancelled, "connection attempt cancelled")
    }
}
