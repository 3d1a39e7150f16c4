import ReaderProtocol

/// The compact CLI syntax: steps `name` or `name=value`, several per argument separated by
/// commas; later steps override earlier ones that set the same property.
extension EmulatorScenario {
    /// The steps, one per line with what each does, for `readerctl scenarios`.
    public static let syntax: String = ScenarioStep.all.map(\.syntaxLine).joined(separator: "\n")

    /// Every step's name, e.g. `swipe-after`, in the order ``syntax`` lists them.
    public static let stepNames: [String] = ScenarioStep.all.map(\.name)

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

    /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
    public var code: Problem.Code { problem.code }

    /// What is wrong with a step.
    public struct Problem: Sendable, Hashable {
        /// What is wrong, as a stable identifier: match on it (a code added later breaks no `switch`).
        public var code: Code { storage.code }

        let storage: Storage

        init(_ storage: Storage) {
            self.storage = storage
        }

        /// No step has this name.
        public static let unknownStep = Self(.unknownStep)

        /// The step needs `=value`.
        public static let missingValue = Self(.missingValue)

        /// The step takes no value.
        public static let unexpectedValue = Self(.unexpectedValue)

        /// The value is not what the step takes.
        public static func invalidValue(expected: String) -> Self {
            Self(.invalidValue(expected: expected))
        }

        /// What is wrong, as a stable identifier (`unknown-step`), as in `readerctl --json`.
        public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            /// No step has this name.
            public static let unknownStep = Self(rawValue: "unknown-step")

            /// The step needs `=value`.
            public static let missingValue = Self(rawValue: "missing-value")

            /// The step takes no value.
            public static let unexpectedValue = Self(rawValue: "unexpected-value")

            /// The value is not what the step takes.
            public static let invalidValue = Self(rawValue: "invalid-value")
        }

        enum Storage: Sendable, Hashable {
            case unknownStep
            case missingValue
            case unexpectedValue
            case invalidValue(expected: String)

            var code: Code {
                switch self {
                case .unknownStep: .unknownStep
                case .missingValue: .missingValue
                case .unexpectedValue: .unexpectedValue
                case .invalidValue: .invalidValue
                }
            }
        }
    }

    /// A `problem` with the step `step`, as written.
    public init(step: String, problem: Problem) {
        self.step = step
        self.problem = problem
    }

    /// The step as written and what is wrong, e.g. `scenario step 'swipe-after' needs a value (name=value)`.
    public var description: String {
        switch problem.storage {
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
