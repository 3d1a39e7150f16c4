import ArgumentParser

/// A time option in seconds, whole or not (`--connect-timeout 2.5`), read once into the
/// `Duration` the library takes.
struct Seconds: ExpressibleByArgument, CustomStringConvertible, Sendable {
    /// As written.
    let value: Double
    /// As the library takes it, to the millisecond; zero for a value no `Duration` holds
    /// (infinite, not a number, beyond a billion seconds), which every option's range, checked
    /// in its command's `validate()`, refuses with a message naming the range.
    let duration: Duration

    init(_ value: Double) {
        self.value = value
        duration = value.isFinite && abs(value) <= 1e9 ? .milliseconds(Int((value * 1000).rounded())) : .zero
    }

    init?(argument: String) {
        guard let value = Double(argument) else { return nil }
        self.init(value)
    }

    /// `5`, `2.5`: as a person writes it.
    var description: String { abs(value) < 1e15 && value == value.rounded() ? String(Int(value)) : String(value) }

    var defaultValueDescription: String { description }
}
