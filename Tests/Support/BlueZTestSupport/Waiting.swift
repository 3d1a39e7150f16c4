// Bounded waits for tests: every wait has a limit, none is a delay.

/// A test's own failure, with what went wrong.
package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Runs `body` but fails if it takes longer than `seconds` (a bound, not a delay).
package func within<T: Sendable>(
    _ seconds: Double = 5, _ what: String = "operation", _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestFailure("\(what) did not finish within \(seconds) s")
        }
        return value
    }
}

/// A one-shot signal from a handler to the test ("the call has arrived").
package final class Gate: Sendable {
    package let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    package init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }
    package func open() { continuation.yield() }
    package func wait(within seconds: Double = 5) async throws {
        let stream = self.stream
        _ = try await within(seconds, "waiting for the gate") {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next() != nil
        }
    }
}
