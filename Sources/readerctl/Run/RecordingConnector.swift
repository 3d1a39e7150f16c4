import CardReaderKit
import ReaderProtocol

/// Opens links through another connector and records what crosses each (`--record`).
struct RecordingConnector: ReaderConnector {
    let connector: any ReaderConnector
    let recording: RunRecording

    var readerDescription: String { connector.readerDescription }

    func connect() async throws(LinkError) -> any ReaderLink {
        RecordingLink(link: try await connector.connect(), recording: recording)
    }
}

/// A link whose writes and notifications are recorded on their way through.
struct RecordingLink: ReaderLink {
    let link: any ReaderLink
    let recording: RunRecording
    let inbound: AsyncStream<LinkInbound>

    init(link: any ReaderLink, recording: RunRecording) {
        self.link = link
        self.recording = recording
        let (stream, continuation) = AsyncStream.makeStream(of: LinkInbound.self)
        let forwarding = Task {
            for await item in link.inbound {
                if case .notification(let bytes) = item { recording.record(.readerToHost, bytes, recording.stamp()) }
                continuation.yield(item)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        inbound = stream
    }

    var maximumWriteLength: Int {
        get async { await link.maximumWriteLength }
    }

    /// The Battery service's levels, as the link carries them (not recorded: not frames).
    var batteryLevels: AsyncStream<UInt8>? { link.batteryLevels }

    var security: LinkSecurity { link.security }

    /// Records the packet as it is handed to the link, before the write's outcome: the
    /// command's answer may end the run before the write's own task resumes, and the
    /// recording must hold the command all the same.
    func write(_ packet: [UInt8]) async throws(LinkError) {
        recording.record(.hostToReader, packet, recording.stamp())
        try await link.write(packet)
    }

    func close() async {
        await link.close()
    }
}
