import Foundation

/// Runs `body`, which blocks (a child process's exit, a pipe, a semaphore), on a thread of
/// its own and returns what it returns. A test that blocked in its own task would hold one
/// of the cooperative pool's threads (two on a 2-core machine), which every other test's
/// tasks share: their reader, their emulator and their D-Bus replies would wait for it.
package func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// ``onThreadOfItsOwn(_:)`` for work that cannot fail.
package func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
