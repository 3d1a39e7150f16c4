import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Foundation
import ManualClockSteps
import ReaderProtocol
import Testing

/// The fault matrix of Docs/reliability.md, one test per cell: a fault of the emulated
/// reader (or its link) hits one operation; the caller sees the cell's outcome, at the
/// latest at the operation's deadline + 100 ms, and the next command — on the recovered
/// connection, or on a fresh one after a link loss — succeeds. ATT MTU 23.
///
/// Every cell runs on a manual clock that the reader and the emulated reader share, so no
/// outcome depends on the machine's speed. A timeout cell advances it exactly to the
/// deadline + 100 ms once the host has handled all the reader sent: the outcome must be
/// there. Other cells step it through the timings their recovery waits for — the 250 ms
/// incomplete-frame cut-off, the reader's 80 ms restart, the events column's card inserted
/// after 1 s and removed after 2 s — one wake-up at a time, each once the host has handled
/// all the reader sent, never as far as an operation's deadline.
@Suite(.timeLimit(.minutes(1)))
struct FaultMatrixTests {
    /// The matrix's operations, as a backend performs them.
    enum Operation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case info, swipe, apdu = "APDU", emv = "EMV read", events

        var testDescription: String { rawValue }

        /// The frame the reader sends for it: its answer (after POWER ON's for APDU and
        /// EMV), or the card-inserted event.
        var frame: Int { self == .apdu || self == .emv ? 2 : 1 }
        /// The command the reader answers with that frame.
        var command: Int { frame }
        var scenario: [String] {
            switch self {
            case .info, .swipe: []
            case .apdu, .emv: ["card-inserted"]
            case .events: ["insert-after=1", "remove-after=2"]
            }
        }
        var code: CommandCode {
            switch self {
            case .info: .getInfo
            case .swipe: .readMagneticStripe
            case .apdu, .emv, .events: .iccAPDU
            }
        }
        /// How many 20-byte packets carry the operation's first command at MTU 23.
        func firstCommandPackets() throws -> Int {
            let command: ReaderCommand =
                switch self {
                case .info, .events: .getInfo
                case .swipe: .readMagneticStripe(timeoutSeconds: 2)
                case .apdu, .emv: .iccAPDU(try .select(name: Array("2PAY.SYS.DDF01".utf8)))
                }
            return (try command.frame.encoded().count + 19) / 20
        }
        /// The documented answer time (§8) + the 1 s link margin; the swipe waits 2 s.
        var deadline: Duration {
            switch self {
            case .info: .milliseconds(1500)
            case .swipe: .seconds(4)
            case .apdu, .emv, .events: .seconds(6)
            }
        }
    }

    /// The matrix's faults, as Docs/reliability.md names them.
    enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case notificationDropped = "notification dropped"
        case notificationDuplicated = "notification duplicated"
        case notificationCorrupted = "notification corrupted"
        case notificationsReordered = "notifications reordered"
        case noise = "noise"
        case noiseWithFalseSTX = "noise with a false STX"
        case falseSTXSplit = "false STX split across notifications"
        case restartMidFrame = "reader restarts mid-frame"
        case frameCutOff = "frame cut off"
        case readerSilent = "reader silent"
        case answerLate = "answer late"
        case answerTwice = "answer twice"
        case answerWithAnotherCode = "answer with another command's MAIN/SUB"
        case answerMalformed = "answer malformed"
        case busy = "busy"
        case linkLostMidFrame = "link lost mid-frame"
        case linkLostMidCommand = "link lost mid-command"
        case cancelRacingTheAnswer = "cancel racing the answer"

        var testDescription: String { rawValue }
    }

    /// What the caller sees.
    enum Outcome: Equatable, CustomStringConvertible {
        case succeeds
        /// ``CardReaderError/readerTimedOut(_:after:)`` at the deadline.
        case timesOut
        case fails(CardReaderError)
        /// ``CardReaderError/malformedResponse(_:_:)``.
        case failsMalformed
        /// ``CardReaderError/linkLost(_:)`` with `emulator-dropped`.
        case linkLost
        /// The answer, or ``CardReaderError/cancelled``: whichever wins the race.
        case succeedsOrCancelled
        /// The operation ends, with its result or a typed error (see the cell's note).
        case endsTyped
        /// Events: what the events stream delivers up to the card-removed event.
        case events([CardReaderEvent])
        /// The fault does not apply to the operation.
        case notApplicable

        var description: String {
            switch self {
            case .succeeds: "succeeds"
            case .timesOut: "times out"
            case .fails(let error): "fails: \(error)"
            case .failsMalformed: "fails: malformed response"
            case .linkLost: "link lost"
            case .succeedsOrCancelled: "succeeds or cancelled"
            case .endsTyped: "ends typed"
            case .events(let events): events.map(\.description).joined(separator: ", ")
            case .notApplicable: "n/a"
            }
        }
    }

    /// The scenario steps that put `fault` on `operation`.
    static func steps(_ fault: Fault, _ operation: Operation) -> [String] {
        let frame = operation.frame
        let command = operation.command
        return switch fault {
        case .notificationDropped: ["drop-in-frame=\(frame)"]
        case .notificationDuplicated: ["duplicate-in-frame=\(frame)"]
        case .notificationCorrupted: ["corrupt-frame=\(frame)"]
        case .notificationsReordered: ["reorder-frame=\(frame)"]
        case .noise: ["noise"]
        case .noiseWithFalseSTX: ["false-stx=\(frame)"]
        case .falseSTXSplit: ["false-stx-split=\(frame)"]
        case .restartMidFrame: ["restart-mid-frame=\(frame)"]
        case .frameCutOff: ["cut-frame=\(frame)"]
        case .readerSilent: ["silent=\(command)"]
        case .answerLate: ["late-answer=\(command)"]
        case .answerTwice: ["duplicate-frame=\(frame)"]
        case .answerWithAnotherCode: ["wrong-code=\(command)"]
        case .answerMalformed: ["malformed-answer=\(command)"]
        case .busy: ["busy=\(command)"]
        case .linkLostMidFrame: ["drop-mid-frame=\(command)"]
        case .linkLostMidCommand: ["drop-before-answer=\(command)"]
        case .cancelRacingTheAnswer: []
        }
    }

    /// The cell's outcome: Docs/reliability.md's table says the same.
    static func expected(_ fault: Fault, _ operation: Operation) -> Outcome {
        let inserted = CardReaderEvent.cardInserted, removed = CardReaderEvent.cardRemoved
        if operation == .events {
            return switch fault {
            case .notificationDropped, .notificationCorrupted, .frameCutOff: .events([removed])
            case .notificationsReordered: .events([removed, inserted])
            // The event is one notification at MTU 23: duplicating it duplicates the event.
            case .answerTwice, .notificationDuplicated: .events([inserted, inserted, removed])
            case .noise, .noiseWithFalseSTX, .falseSTXSplit: .events([inserted, removed])
            case .linkLostMidFrame: .events([.disconnected(LinkError(.remoteDisconnected, ""))])
            default: .notApplicable
            }
        }
        return switch fault {
        case .notificationDropped, .notificationCorrupted, .notificationsReordered, .frameCutOff, .readerSilent,
            .answerLate, .answerWithAnotherCode:
            .timesOut
        case .noise, .noiseWithFalseSTX, .falseSTXSplit, .restartMidFrame: .succeeds
        // An APDU's answer here is one notification: duplicating it is answering twice.
        case .answerTwice, .notificationDuplicated: operation == .emv ? .endsTyped : .succeeds
        case .answerMalformed: .failsMalformed
        case .busy: .fails(.readerBusy(operation.code))
        case .linkLostMidFrame, .linkLostMidCommand: .linkLost
        case .cancelRacingTheAnswer: .succeedsOrCancelled
        }
    }

    /// How far the clock steps at a time in a cell that does not time out: past the
    /// incomplete-frame cut-off (250 ms), and in the events column past the emulated
    /// cardholder's 1 s between events; short of every deadline (1.5 s and more).
    static func step(_ operation: Operation) -> Duration {
        operation == .events ? .seconds(1) : .milliseconds(250)
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var fault: Fault
        var operation: Operation
        var testDescription: String { "\(fault.rawValue) × \(operation.rawValue)" }
    }

    static let cells: [Cell] = Fault.allCases.flatMap { fault in
        Operation.allCases.compactMap { operation in
            expected(fault, operation) == .notApplicable ? nil : Cell(fault: fault, operation: operation)
        }
    }

    @Test(arguments: cells)
    func cell(_ cell: Cell) async throws {
        let expected = Self.expected(cell.fault, cell.operation)
        let clock = ManualClock()
        var scenario = cell.operation.scenario + Self.steps(cell.fault, cell.operation)
        if cell.operation == .events, cell.fault == .linkLostMidFrame { scenario = ["reset-after=1", "insert-after=2"] }
        let emulator = EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: scenario), clock: clock)
        let control = ConnectorControl()
        let reader = CardReader(
            connector: ControlledConnector(base: EmulatedReaderConnector(reader: emulator), control: control), clock: clock)
        try await reader.connect()
        if cell.operation == .apdu || cell.operation == .emv { _ = try await reader.powerOnCard() }
        let writesBefore = await control.writes

        let step = Self.step(cell.operation)
        if case .events(let events) = expected {
            let seen = try await clock.advancing(throughSleepsWithin: step, onceHostHasHandled: emulator, control: control) {
                try await Self.events(from: reader, upTo: events.count)
            }
            #expect(seen == events, "\(cell)")
        } else if expected == .timesOut {
            let operation = Task { try await Self.perform(cell.operation, on: reader) }
            // The command the fault hits is the first written now (its deadline is set
            // before it is written); once the host has handled all the reader sent,
            // exactly the deadline + 100 ms passes: the outcome must be there.
            try await control.waitForWrites(writesBefore + (try cell.operation.firstCommandPackets()))
            try await control.waitUntilHostHasHandled(await emulator.sentOnLatestConnection)
            clock.advance(by: cell.operation.deadline + .milliseconds(100))
            Self.check(await operation.result, expected, cell)
        } else {
            let operation = Task { try await Self.perform(cell.operation, on: reader) }
            if cell.fault == .cancelRacingTheAnswer { operation.cancel() }
            let result = await clock.advancing(throughSleepsWithin: step, onceHostHasHandled: emulator, control: control) {
                await operation.result
            }
            Self.check(result, expected, cell)
        }

        // The next command works: on the same connection, or on a fresh one after a loss
        // (after a scheduled reset, once the reader is back from its silence).
        if await reader.state != .connected {
            try await clock.advancing(throughSleepsWithin: .seconds(10)) { try await emulator.waitUntilRunning() }
            try await reader.connect()
        }
        #expect(try await reader.info().model == "VPOS3356", "\(cell): the next command")
        await reader.disconnect()
    }

    static func perform(_ operation: Operation, on reader: CardReader) async throws {
        switch operation {
        case .info: _ = try await reader.info()
        case .swipe: _ = try await reader.readMagneticStripe(timeout: .seconds(2))
        case .apdu: _ = try await reader.transmit(try .select(name: Array("2PAY.SYS.DDF01".utf8)))
        case .emv: _ = try await reader.readEMVCard()
        case .events: break
        }
    }

    /// The first `count` events, or those until the end of the connection (bounded in real
    /// time by ``WaitBound``, only so that a broken cell cannot hang). The reset warning a
    /// reader sends on connecting is not counted.
    static func events(from reader: CardReader, upTo count: Int) async throws -> [CardReaderEvent] {
        let stream = await reader.events()
        let collect = Task {
            var events: [CardReaderEvent] = []
            for await event in stream {
                if case .disconnected(let reason?) = event {
                    events.append(.disconnected(LinkError(reason.code, "")))
                    break
                }
                if case .resetScheduled = event { continue }
                events.append(event)
                if events.count >= count { break }
            }
            return events
        }
        let alarm = Task {
            try await Task.sleep(for: WaitBound.inProcess)
            collect.cancel()
        }
        defer { alarm.cancel() }
        return await collect.value
    }

    static func check(_ result: Result<Void, any Error>, _ expected: Outcome, _ cell: Cell) {
        let error = result.failureError as? CardReaderError
        switch expected {
        case .succeeds:
            #expect(error == nil && result.isSuccess, "\(cell): \(String(describing: error))")
        case .timesOut:
            // An answer under another code is named by the timeout it leads to.
            let instead = cell.fault == .answerWithAnotherCode ? error?.answeredInstead : nil
            #expect(
                error == .readerTimedOut(cell.operation.code, after: cell.operation.deadline, answeredInstead: instead), "\(cell)")
            if cell.fault == .answerWithAnotherCode {
                #expect(instead != nil && instead != cell.operation.code, "\(cell): \(String(describing: error))")
            }
        case .fails(let wanted):
            #expect(error == wanted, "\(cell)")
        case .failsMalformed:
            guard let error, error.code == .malformedResponse else {
                Issue.record("\(cell): expected a malformed response, got \(String(describing: error))")
                return
            }
            #expect(error.command == cell.operation.code)
        case .linkLost:
            guard let error, error.code == .linkLost, let reason = error.link else {
                Issue.record("\(cell): expected linkLost, got \(String(describing: error))")
                return
            }
            #expect(reason.code == .remoteDisconnected)
        case .succeedsOrCancelled:
            #expect(result.isSuccess || error == .cancelled, "\(cell): \(String(describing: error))")
        case .endsTyped:
            #expect(result.isSuccess || error != nil, "\(cell): an untyped error")
        case .events, .notApplicable:
            Issue.record("\(cell): not an operation outcome")
        }
    }

    /// Docs/reliability.md's matrix is this suite's: same faults, operations and outcomes.
    @Test func theDocumentedMatrixIsTheTestedOne() throws {
        let document = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Docs/reliability.md"), encoding: .utf8)
        let rows = document.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| fault") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        let matrix = Dictionary(rows.compactMap { row in row.first.map { ($0, Array(row.dropFirst())) } }) { first, _ in first }
        // A cell's outcome is the longest outcome phrase it starts with ("succeeds or
        // cancelled" is not "succeeds").
        let phrases = Set(Fault.allCases.flatMap { fault in
            Operation.allCases.map { Self.documentedWord(Self.expected(fault, $0)) }
        })
        for fault in Fault.allCases {
            let row = try #require(matrix[fault.rawValue], "Docs/reliability.md has no row '\(fault.rawValue)'")
            for (index, operation) in Operation.allCases.enumerated() {
                let documented = index < row.count ? row[index] : ""
                let phrase = phrases.filter { documented.hasPrefix($0) }.max { $0.count < $1.count }
                #expect(
                    phrase == Self.documentedWord(Self.expected(fault, operation)),
                    "Docs/reliability.md, \(fault.rawValue) × \(operation.rawValue): '\(documented)'")
            }
        }
    }

    /// How a cell of the document starts for each outcome.
    static func documentedWord(_ outcome: Outcome) -> String {
        switch outcome {
        case .succeeds: "succeeds"
        case .timesOut: "times out"
        case .fails(let error) where error.code == .readerBusy: "readerBusy"
        case .fails: "fails"
        case .failsMalformed: "malformedResponse"
        case .linkLost: "linkLost"
        case .succeedsOrCancelled: "succeeds or cancelled"
        case .endsTyped: "succeeds or a typed error"
        case .events(let events):
            switch events {
            case [.cardRemoved]: "event lost"
            case [.cardRemoved, .cardInserted]: "events reordered"
            case [.cardInserted, .cardInserted, .cardRemoved]: "event twice"
            case [.cardInserted, .cardRemoved]: "delivered"
            default: "disconnected"
            }
        case .notApplicable: "n/a"
        }
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
    var failureError: Failure? { if case .failure(let error) = self { error } else { nil } }
}
