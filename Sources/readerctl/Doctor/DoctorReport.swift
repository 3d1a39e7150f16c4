import CommandLineOutput
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The checks of one `readerctl doctor` run, in order: each line is printed as its check
/// ends (as text), or all of them at the end as one JSON object (`--json`).
final class DoctorReport {
    private(set) var checks: [DoctorCheck] = []
    private let json: Bool

    init(json: Bool) {
        self.json = json
    }

    /// Runs the check `step` and records its line; the value when it holds, else nil.
    func check<Value>(_ step: DoctorStep, _ work: () async -> DoctorFinding<Value>) async -> Value? {
        let name = step.rawValue
        let start = ContinuousClock.now
        let finding = await work()
        let elapsed = ContinuousClock.now - start
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        switch finding {
        case .holds(let value, let found):
            record(DoctorCheck(check: name, status: .ok, found: found, milliseconds: milliseconds))
            return value
        case .warns(let value, let found, let fix):
            record(DoctorCheck(check: name, status: .warn, found: found, fix: fix, milliseconds: milliseconds))
            return value
        case .fails(let found, let fix):
            record(DoctorCheck(check: name, status: .fail, found: found, fix: fix, milliseconds: milliseconds))
            return nil
        }
    }

    /// Records every step of `steps` that has no line yet as skipped: it needs the first
    /// check that failed.
    func skipRemaining(of steps: [DoctorStep]) {
        let failed = checks.first { $0.status == .fail }?.check ?? "an earlier check"
        for step in steps where !checks.contains(where: { $0.check == step.rawValue }) {
            record(DoctorCheck(check: step.rawValue, status: .skipped, found: "needs \(failed)"))
        }
    }

    /// Whether every check held (a warning holds).
    var allHold: Bool { checks.allSatisfy { $0.status == .ok || $0.status == .warn } }

    /// The closing line (text), or the whole report (JSON).
    func finish(readerChecked: Bool) {
        if json {
            print(Output.json(Summary(ok: allHold, checks: checks)))
        } else {
            let failed = checks.filter { $0.status == .fail }.map(\.check)
            let skipped = checks.count { $0.status == .skipped }
            let warned = checks.filter { $0.status == .warn }.map(\.check)
            let warnings = warned.isEmpty ? "" : " (\(warned.joined(separator: ", ")) with a warning: see its fix)"
            if failed.isEmpty {
                print("All \(checks.count) checks hold\(warnings): " + (readerChecked
                    ? "the reader can be used."
                    : "this machine can reach Bluetooth LE readers (--reader NAME checks one)."))
            } else {
                print("\(failed.count) of \(checks.count) checks failed (\(failed.joined(separator: ", ")))"
                    + (skipped > 0 ? ", \(skipped) skipped" : "") + ": see the fix under each FAIL.")
            }
        }
        fflush(nil)
    }

    private func record(_ check: DoctorCheck) {
        checks.append(check)
        guard !json else { return }
        print(check.text)
        fflush(nil)
    }

    private struct Summary: Encodable {
        var ok: Bool
        var checks: [DoctorCheck]
    }
}
