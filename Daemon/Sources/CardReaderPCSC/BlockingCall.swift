import NIOCore
import NIOPosix

/// pcscd calls a driver synchronously, from its own threads; the driver's work with the
/// service is async. This runs that work and makes the calling thread wait for it. Never
/// to be called from a Swift concurrency thread or an event loop (which pcscd's are not).
package enum BlockingCall {
    package static func run<Value: Sendable>(
        _ work: @escaping @Sendable () async throws(DriverFailure) -> Value
    ) throws(DriverFailure) -> Value {
        let promise = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Value.self)
        promise.completeWithTask { try await work() }
        do {
            return try promise.futureResult.wait()
        } catch let failure as DriverFailure {
            throw failure
        } catch {
            throw DriverFailure(kind: .refused, message: "\(error)")
        }
    }
}
