import CardReaderKit
import CommandLineOutput
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Firmware update progress on standard output: on a terminal one live line per reader,
/// redrawn in place (at most ten times a second); otherwise a line when a reader changes
/// phase or passes a quarter of the image; with `--json`, one JSON object per change.
final class ProgressBoard: Sendable {
    private struct State {
        var labels: [String] = []
        var lines: [String: String] = [:]
        var lastPhase: [String: FirmwareUpdateProgress.Phase] = [:]
        var lastQuarter: [String: Int] = [:]
        var drawnLines = 0
        var lastDraw: ContinuousClock.Instant?
    }

    private let json: Bool
    private let live: Bool
    private let state = Locked(State())

    init(json: Bool) {
        self.json = json
        live = !json && isatty(STDOUT_FILENO) == 1
    }

    func update(_ label: String, _ progress: FirmwareUpdateProgress) {
        state.withLock { state in
            if !state.labels.contains(label) { state.labels.append(label) }
            let phaseChanged = state.lastPhase[label] != progress.phase
            state.lastPhase[label] = progress.phase
            let quarter = Int(progress.fractionCompleted * 4)
            let quarterPassed = quarter != state.lastQuarter[label]
            state.lastQuarter[label] = quarter
            if json {
                guard phaseChanged || progress.phase == .transferring else { return }
                var fields: [String: FieldValue] = [
                    "reader": .text(label), "phase": .text(progress.phase.rawValue), "bytesSent": .integer(progress.bytesSent),
                    "totalBytes": .integer(progress.totalBytes),
                ]
                if let rate = progress.bytesPerSecond { fields["bytesPerSecond"] = .integer(Int(rate)) }
                if let left = progress.estimatedTimeRemaining { fields["secondsLeft"] = .integer(Int(left.components.seconds)) }
                Output.print(fields, json: true)
                fflush(nil)
                return
            }
            state.lines[label] = Self.line(label, progress, width: state.labels.map(\.count).max() ?? 0)
            if live {
                let now = ContinuousClock.now
                guard phaseChanged || state.lastDraw.map({ now - $0 >= .milliseconds(100) }) ?? true else { return }
                state.lastDraw = now
                Self.redraw(&state)
            } else if phaseChanged || quarterPassed {
                print(state.lines[label] ?? "")
                fflush(nil)
            }
        }
    }

    /// Draws the final lines (on a terminal) before the summary.
    func finish() {
        state.withLock { state in
            if live { Self.redraw(&state) }
        }
    }

    private static func redraw(_ state: inout State) {
        var text = state.drawnLines > 0 ? "\u{1B}[\(state.drawnLines)A" : ""
        for label in state.labels {
            text += "\r\u{1B}[2K" + (state.lines[label] ?? label) + "\n"
        }
        state.drawnLines = state.labels.count
        print(text, terminator: "")
        fflush(nil)
    }

    /// E.g. `VPOS3356-0001 (00:AA:01:00:00:00)  transferring   42%   5.1 KiB/s  0:03 left`.
    static func line(_ label: String, _ progress: FirmwareUpdateProgress, width: Int) -> String {
        var text = label.padded(to: width + 2) + progress.phase.rawValue.padded(to: 14)
        text += "\(Int(progress.fractionCompleted * 100))%".padded(to: 6)
        if let rate = progress.bytesPerSecond {
            text += kibibytesPerSecond(rate).padded(to: 13)
        }
        if let left = progress.estimatedTimeRemaining {
            text += clock(left) + " left"
        }
        return text
    }

    /// A rate to a tenth of a KiB/s, e.g. `5.1 KiB/s`.
    static func kibibytesPerSecond(_ bytesPerSecond: Double) -> String {
        String(Double(Int(bytesPerSecond / 102.4)) / 10) + " KiB/s"
    }

    /// `m:ss`.
    static func clock(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        return "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
    }
}
