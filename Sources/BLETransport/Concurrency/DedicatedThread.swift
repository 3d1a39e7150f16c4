#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A detached POSIX thread for work that blocks (a D-Bus connection's dispatch loop), so it
/// never occupies the cooperative pool. A pthread, not Foundation's `Thread`: the library
/// modules load no Foundation.
enum DedicatedThread {
    /// Starts `body` on a new detached thread. Returns false when the system refuses one.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Start(body: body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Start>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context) == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private final class Start: Sendable {
        let body: @Sendable () -> Void

        init(body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }
}
