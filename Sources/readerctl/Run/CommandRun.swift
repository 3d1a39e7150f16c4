import ArgumentParser
import BLETransport
import CardReaderKit
import CommandLineOutput

/// How every readerctl command that does work runs: in a task that Ctrl-C cancels (a
/// second Ctrl-C quits at once), its `--record` recording kept whatever the outcome, and its
/// failure reported on standard error (and as JSON with `--json`) and turned into the exit
/// status.
enum CommandRun {
    /// What Ctrl-C means to the command.
    enum Interruption {
        /// It cancels the work, which ends with its own error (a reader's `cancelled`: exit 130).
        case cancels
        /// It is how the command ends (`scan`, `emulate`): the work's end is a success.
        case stops
    }

    /// Runs `work` and returns what it returns; a failure is reported and thrown as its
    /// exit status. A recording refused or not written after work that succeeded leaves the
    /// result to be printed, and ends readerctl with its status (``DeferredExitStatus``).
    static func perform<Value: Sendable, Failure: CommandFailure>(
        json: Bool = false, interruption: Interruption = .cancels, recording: RunRecording? = nil,
        revealingCardData reveal: Bool = false, _ work: @escaping @Sendable () async throws(Failure) -> Value
    ) async throws -> Value {
        let task = InterruptSignal.cancelling {
            Task { () -> Result<Value, Failure> in
                do throws(Failure) {
                    return .success(try await work())
                } catch {
                    return .failure(error)
                }
            }
        }
        let outcome = await task.value
        InterruptSignal.workEnded()
        // The run up to a failure is worth keeping too.
        let recorded = Result { () throws(ExitCode) in try recording?.finish(revealingCardData: reveal) }
        switch outcome {
        case .success(let value):
            if case .failure(let status) = recorded { DeferredExitStatus.note(status) }
            return value
        case .failure where interruption == .stops && task.isCancelled:
            throw ExitStatus.success.exitCode
        case .failure(let failure):
            report(failure, json: json)
            throw failure.exitStatus.exitCode
        }
    }

    /// The failure on standard error, with its fix; with `--json`, also as an object on
    /// standard output (`error`, `message`, `fix`).
    static func report(_ failure: some CommandFailure, json: Bool) {
        guard let message = failure.message else { return }
        ErrorReport.write(message, fix: failure.fix)
        if json {
            var fields: [String: FieldValue] = ["error": .text(failure.identifier), "message": .text(message)]
            fields["fix"] = failure.fix.map(FieldValue.text)
            Output.print(fields, json: true)
        }
    }
}

/// A way a command fails: what it prints, and the exit status it ends with.
protocol CommandFailure: Error {
    /// The exit status, e.g. ``ExitStatus/linkLost``.
    var exitStatus: ExitStatus { get }
    /// The stable identifier `--json` prints as `error`.
    var identifier: String { get }
    /// What happened, for standard error; nil when the command has printed it already.
    var message: String? { get }
    /// What a person can do about it.
    var fix: String? { get }
}

extension CardReaderError: CommandFailure {
    var exitStatus: ExitStatus { ExitStatus.of(self) }
    var message: String? { description }
}

extension PairingError: CommandFailure {
    var exitStatus: ExitStatus {
        switch code {
        case .cancelled: .cancelled
        case .linkFailed: .linkLost
        default: .linkNotSecure
        }
    }
    var identifier: String { code.rawValue }
    var message: String? { description }
}

extension LinkError: CommandFailure {
    var exitStatus: ExitStatus { code == .heldByService ? .refused : .linkLost }
    var identifier: String { code.rawValue }
    var message: String? { description }
}

extension BluetoothError: CommandFailure {
    var exitStatus: ExitStatus { .linkLost }
    var identifier: String { code.rawValue }
    var message: String? { description }
}
