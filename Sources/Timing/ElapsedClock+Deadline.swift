/// How ``ElapsedClock/run(until:_:)`` ended.
package enum DeadlineOutcome<Value: Sendable>: Sendable {
    /// The work finished first, with this value.
    case finished(Value)
    /// The deadline came first.
    case timedOut
    /// The caller's task was cancelled first.
    case cancelled
}

extension ElapsedClock {
    /// Runs `work` in a task of its own until the clock reaches `deadline`: whichever comes
    /// first, the work's value, the deadline or the caller's cancellation, decides, and the
    /// loser is cancelled. Work that ignores cancellation (a person's prompt) does not
    /// hold the caller: it returns at the deadline all the same.
    package func run<Value: Sendable>(
        until deadline: Duration, _ work: @escaping @Sendable () async -> Value
    ) async -> DeadlineOutcome<Value> {
        let (outcomes, continuation) = AsyncStream.makeStream(of: DeadlineOutcome<Value>.self)
        let worker = Task { continuation.yield(.finished(await work())) }
        let timer = Task { [sleep] in
            if (try? await sleep(deadline)) != nil { continuation.yield(.timedOut) }
        }
        // The stream's first element is the first outcome; nil when the caller is cancelled.
        var first: DeadlineOutcome<Value> = .cancelled
        for await outcome in outcomes {
            first = outcome
            break
        }
        continuation.finish()
        worker.cancel()
        timer.cancel()
        return first
    }
}
