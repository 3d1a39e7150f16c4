import ArgumentParser
import CommandLineOutput
import FoundationEssentials
import Locking
import ReaderProtocol

/// `--record FILE`: the run's writes and notifications, timestamped, kept in memory and
/// written at the end in the text format `decode` reads. Card data in it is the reader's bytes:
/// the file is written only if every card in it is a published test card, or with `--reveal`.
final class RunRecording: Sendable {
    let path: String
    private let command: String
    private let start = ContinuousClock.now
    private let state = Locked(State())

    private struct State {
        var taken = 0
        var packets: [(stamp: Stamp, packet: RecordedPacket)] = []
    }

    /// When a packet crossed the link: its place in the run's order and its time.
    struct Stamp {
        let order: Int
        let seconds: Double
    }

    init(path: String, command: String) {
        self.path = path
        self.command = command
    }

    /// A stamp for a packet crossing now: a write as it is handed over, a notification as it
    /// arrives.
    func stamp() -> Stamp {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return state.withLock { state in
            state.taken += 1
            return Stamp(order: state.taken, seconds: (seconds * 1000).rounded() / 1000)
        }
    }

    /// Notes one packet, stamped when it crossed.
    func record(_ direction: LinkDirection, _ bytes: [UInt8], _ stamp: Stamp) {
        state.withLock { state in
            state.packets.append((stamp, RecordedPacket(direction: direction, bytes: bytes, timestamp: stamp.seconds, location: 0)))
        }
    }

    /// Writes the file, or refuses when it would hold a card that is not a test card and
    /// `reveal` is false; says so on standard error either way.
    func finish(revealingCardData reveal: Bool) throws(ExitCode) {
        // Each packet in the place it had when it crossed.
        let packets = state.withLock { state in
            defer { state.packets.removeAll() }
            return state.packets.sorted { $0.stamp.order < $1.stamp.order }.map(\.packet)
        }
        let cardData = RecordedCardData(packets: packets)
        guard !cardData.pinData else {
            StandardStreams.writeError(
                "readerctl: not writing \(path): the run sent PIN data (VERIFY or PIN CHANGE), which readerctl never writes to a file, not even with --reveal\n")
            throw ExitStatus.recordingRefused.exitCode
        }
        guard reveal || cardData.holdsOnlyTestCards else {
            let numbers = cardData.cardNumbers.filter { !TestCardNumbers.contains($0) }.map(\.masked)
            let which = numbers.isEmpty ? "card data whose card cannot be told" : "card \(numbers.joined(separator: ", "))"
            StandardStreams.writeError(
                "readerctl: not writing \(path): the run holds \(which), not a published test card; "
                    + "--reveal writes the reader's bytes as they are\n")
            throw ExitStatus.recordingRefused.exitCode
        }
        let header = """
            # readerctl \(command)
            # \(packets.count) packets: '>' written to the reader, '<' notified by it; seconds since the start
            # card data: \(cardData.holdsCardData ? (reveal ? "as the reader sent it (--reveal)" : "published test cards only") : "none")

            """
        let text = header + (packets.isEmpty ? "" : PacketRecordingText.render(packets))
        // Owner-only: the file may hold the reader's card data as it was sent (--reveal).
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            StandardStreams.writeError("readerctl: cannot write \(path) (does its directory exist? permissions?)\n")
            throw ExitStatus.unreadableInput.exitCode
        }
        StandardStreams.writeError("readerctl: recorded \(packets.count) packets in \(path)\n")
    }
}
