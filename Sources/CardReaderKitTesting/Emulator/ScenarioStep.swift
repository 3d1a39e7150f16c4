import ReaderProtocol

/// One step of the scenario syntax: its name, what it takes, what it does, and how it
/// changes a scenario. ``EmulatorScenario/apply(_:)`` and ``EmulatorScenario/syntax`` both
/// read the one list of steps (``all``).
struct ScenarioStep: Sendable {
    /// The step's name, e.g. `swipe-after`.
    let name: String
    /// What follows the name in the syntax: `=SECONDS`, `[=N]`, or nothing.
    let argument: String
    /// What the step does, for `readerctl scenarios`.
    let summary: String
    /// Sets the scenario's properties from the step's value.
    let apply: @Sendable (inout EmulatorScenario, Value) throws(EmulatorScenarioError) -> Void

    init(
        _ name: String, takes argument: String = "", does summary: String,
        apply: @escaping @Sendable (inout EmulatorScenario, Value) throws(EmulatorScenarioError) -> Void
    ) {
        self.name = name
        self.argument = argument
        self.summary = summary
        self.apply = apply
    }

    /// A step as written, `name` or `name=value`, and the readings of its value.
    struct Value {
        /// The step as written, for errors.
        let step: String
        let name: String
        /// What follows `=`, if anything does.
        let text: String?

        static let seconds = 0...86_400
        static let ordinal = 1...1_000_000

        /// A whole number in `range`; without a value, `fallback` (or a missing-value error).
        func number(_ range: ClosedRange<Int>, default fallback: Int? = nil) throws(EmulatorScenarioError) -> Int {
            guard let text else {
                guard let fallback else { throw EmulatorScenarioError(step: step, problem: .missingValue) }
                return fallback
            }
            guard let parsed = Int(text), range.contains(parsed) else {
                throw EmulatorScenarioError(
                    step: step, problem: .invalidValue(expected: "a whole number in \(range.lowerBound)…\(range.upperBound)"))
            }
            return parsed
        }

        /// Every occurrence without a value, or only the Nth with `=N`.
        func selection() throws(EmulatorScenarioError) -> EmulatorScenario.CommandSelection {
            text == nil ? .every : .number(try number(Self.ordinal))
        }

        /// Nothing: the step takes no value.
        func flag() throws(EmulatorScenarioError) {
            guard text == nil else { throw EmulatorScenarioError(step: step, problem: .unexpectedValue) }
        }

        /// `KEY:VALUE` in hex with exactly these numbers of digits.
        func hexPair(keyDigits: Int, valueDigits: Int, example: String) throws(EmulatorScenarioError) -> (Int, Int) {
            let fields = text?.split(separator: ":", omittingEmptySubsequences: false) ?? []
            guard fields.count == 2, fields[0].count == keyDigits, fields[1].count == valueDigits,
                let key = Int(fields[0], radix: 16), let value = Int(fields[1], radix: 16)
            else { throw invalid("\(keyDigits) and \(valueDigits) hex digits, as in \(name)=\(example)") }
            return (key, value)
        }

        /// `A:B` in decimal, `B` optional when `defaultSecond` is given.
        func decimalPair(
            _ first: ClosedRange<Int>, _ second: ClosedRange<Int>, defaultSecond: Int? = nil, expected: String
        ) throws(EmulatorScenarioError) -> (Int, Int) {
            let fields = text?.split(separator: ":", omittingEmptySubsequences: false) ?? []
            guard fields.count == 2 || (fields.count == 1 && defaultSecond != nil),
                let a = Int(fields[0]), first.contains(a),
                let b = fields.count == 2 ? Int(fields[1]) : defaultSecond, second.contains(b)
            else { throw invalid(expected) }
            return (a, b)
        }

        func invalid(_ expected: String) -> EmulatorScenarioError {
            EmulatorScenarioError(step: step, problem: .invalidValue(expected: expected))
        }
    }
}
