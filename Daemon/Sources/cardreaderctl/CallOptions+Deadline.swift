import GRPCCore

extension CallOptions {
    /// The defaults, with a deadline `seconds` from now: the service bounds the call by it,
    /// its wait for the reader included.
    static func deadline(seconds: Int) -> CallOptions {
        var options = CallOptions.defaults
        options.timeout = .seconds(seconds)
        return options
    }
}
