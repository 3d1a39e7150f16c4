import GRPCCore

/// What the daemon's transport knows of a call, set on its context before the service
/// sees it: who is calling, and until when the call may run (its `grpc-timeout`).
package struct CallerContext: ServerContext.TransportSpecific {
    package var caller: Caller
    /// When the caller's deadline passes, on the continuous clock; nil: none set.
    package var deadline: ContinuousClock.Instant?

    package init(caller: Caller, deadline: ContinuousClock.Instant?) {
        self.caller = caller
        self.deadline = deadline
    }

    /// The deadline a `grpc-timeout` header value gives, from `now`: up to eight digits and
    /// a unit (`H`, `M`, `S`, `m`, `u`, `n`), e.g. `100m`; nil for anything else.
    package static func deadline(grpcTimeout value: String, from now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard let unit = value.last, value.count >= 2, value.count <= 9,
            let amount = Int64(value.dropLast()), amount >= 0
        else { return nil }
        let duration: Duration
        switch unit {
        case "H": duration = .seconds(amount * 3600)
        case "M": duration = .seconds(amount * 60)
        case "S": duration = .seconds(amount)
        case "m": duration = .milliseconds(amount)
        case "u": duration = .microseconds(amount)
        case "n": duration = .nanoseconds(amount)
        default: return nil
        }
        return now + duration
    }
}
