import CardReaderService
import Testing

/// `grpc-timeout` values as the gRPC HTTP/2 protocol defines them
/// (doc/PROTOCOL-HTTP2.md in grpc/grpc: TimeoutValue is at most 8 digits, then H, M, S, m,
/// u or n).
@Suite struct CallerContextTests {
    @Test(arguments: [
        ("1H", Duration.seconds(3600)), ("2M", .seconds(120)), ("30S", .seconds(30)), ("100m", .milliseconds(100)),
        ("250u", .microseconds(250)), ("99999999n", .nanoseconds(99_999_999)),
    ])
    func aTimeoutIsItsDeadline(value: String, duration: Duration) {
        let now = ContinuousClock.now
        #expect(CallerContext.deadline(grpcTimeout: value, from: now) == now + duration)
    }

    @Test(arguments: ["", "S", "123456789S", "10s", "-1S", "1.5S", "10 S"])
    func anythingElseIsNoDeadline(value: String) {
        #expect(CallerContext.deadline(grpcTimeout: value, from: .now) == nil)
    }
}
