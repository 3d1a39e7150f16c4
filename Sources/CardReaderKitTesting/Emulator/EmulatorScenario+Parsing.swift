import ReaderProtocol

/// The compact CLI syntax: steps `name` or `name=value`, several per argument separated by
/// commas; later steps override earlier ones that set the same property.
extension EmulatorScenario {
    /// The steps, one per line with what each does, for `readerctl scenarios`.
    public static let syntax: String = ScenarioStep.all.map(\.syntaxLine).joined(separator: "\n")

    /// Parses steps such as `["swipe-after=2", "remove-card-during-apdu,low-battery"]`.
    public init(parsing arguments: some Sequence<String>) throws(EmulatorScenarioError) {
        self.init()
        for argument in arguments {
            for step in argument.split(separator: ",", omittingEmptySubsequences: true) {
                try apply(String(step.trimmingWhitespace))
            }
        }
    }

    /// Applies one step, e.g. `swipe-after=2`.
    public mutating func apply(_ step: String) throws(EmulatorScenarioError) {
        let parts = step.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard let known = ScenarioStep.named[name] else { throw EmulatorScenarioError(step: step, problem: .unknownStep) }
        try known.apply(&self, ScenarioStep.Value(step: step, name: name, text: parts.count > 1 ? String(parts[1]) : nil))
    }
}

extension ScenarioStep {
    /// The steps by name.
    static let named: [String: ScenarioStep] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// `name=ARGUMENT`, then what it does from column 28, wrapped at 112 columns.
    var syntaxLine: String {
        let head = name + argument
        let indent = String(repeating: " ", count: 27)
        var lines = [head.count < 27 ? head + String(repeating: " ", count: 27 - head.count) : head + " "]
        for word in summary.split(separator: " ") {
            if lines[lines.count - 1].count + word.count + 1 > 112 {
                lines.append(indent + word)
            } else {
                lines[lines.count - 1] += (lines[lines.count - 1].hasSuffix(" ") ? "" : " ") + word
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// A scenario step that does not parse.
public struct EmulatorScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The step as written.
    public var step: String
    /// Why it does not parse.
    public var problem: Problem

    /// What is wrong with a step.
    public enum Problem: Sendable, Hashable {
        /// No step has this name.
        case unknownStep
        /// The step needs `=value`.
        case missingValue
        /// The step takes no value.
        case unexpectedValue
        /// The value is not what the step takes.
        case invalidValue(expected: String)
    }

    /// A `problem` with the step `step`, as written.
    public init(step: String, problem: Problem) {
        self.step = step
        self.problem = problem
    }

    /// The step as written and what is wrong, e.g. `scenario step 'swipe-after' needs a value (name=value)`.
    public var description: String {
        switch problem {
        case .unknownStep: "unknown scenario step '\(step)'"
        case .missingValue: "scenario step '\(step)' needs a value (name=value)"
        case .unexpectedValue: "scenario step '\(step)' takes no value"
        case .invalidValue(let expected): "scenario step '\(step)': the value must be \(expected)"
        }
    }
}

extension Substring {
    /// Without leading and trailing white space.
    fileprivate var trimmingWhitespace: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
