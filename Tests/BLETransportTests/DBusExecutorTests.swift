@testable import BLETransport
import BlueZTestSupport
import Locking
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The connection's dispatch thread as a task executor: tasks that prefer it run on that
/// thread, and never wait on it once it has gone.
@Suite("DBusConnection's executor", .needsDBus)
struct DBusExecutorTests {
    /// Whether the caller runs on `connection`'s dispatch thread.
    private func onDispatchThread(of connection: DBusConnection) -> Bool {
        guard let thread = connection.loop.thread.withLock({ $0 }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    @Test func callsAndSignalsResumeATaskOnTheDispatchThread() async throws {
        try await withBus { _, client, server in
            let signals = try await client.signals(matching: DBusMatchRule(interface: "org.example.Executor"))
            let threads = try await within(10, "a call and a signal on the connection's executor") {
                try await withTaskExecutorPreference(client.executor) {
                    var threads: [Bool] = []
                    _ = try await client.listNames()
                    threads.append(onDispatchThread(of: client))
                    try server.emitSignal(path: "/test", interface: "org.example.Executor", member: "Ping", body: [])
                    for await _ in signals { break }
                    threads.append(onDispatchThread(of: client))
                    return threads
                }
            }
            #expect(threads == [true, true])
            // Outside the preference, the same call resumes on the global executor's threads.
            _ = try await client.listNames()
            #expect(!onDispatchThread(of: client))
        }
    }

    /// Replies are matched by serial whichever thread sends: 100 calls from tasks on the
    /// dispatch thread itself, all in flight at once.
    @Test func callsInFlightFromTheDispatchThreadGetTheirOwnReplies() async throws {
        try await withBus { _, client, server in
            try server.export("/test/double", interfaces: [
                DBusInterface("org.example.Math", methods: [
                    DBusMethod("Double", in: "u", out: "u") { call in [.uint32((call.arguments.first?.uint32Value ?? 0) * 2)] }
                ])
            ])
            let remote = DBusRemoteObject(connection: client, destination: server.uniqueName, path: "/test/double")
            let results = try await within(20, "100 calls from the dispatch thread") {
                try await withThrowingTaskGroup(of: (UInt32, UInt32?).self) { group in
                    for n in 0..<100 as Range<UInt32> {
                        group.addTask(executorPreference: client.executor) {
                            (n, try await remote.call("org.example.Math", "Double", [.uint32(n)]).first?.uint32Value)
                        }
                    }
                    var results: [UInt32: UInt32] = [:]
                    for try await (n, double) in group { results[n] = double }
                    return results
                }
            }
            #expect(results.count == 100)
            #expect(results.allSatisfy { $0.value == $0.key * 2 })
        }
    }

    /// A task waiting on the executor when the connection closes is failed and resumed
    /// elsewhere, and a task started on the executor afterwards runs to its end.
    @Test func tasksOutliveTheDispatchThread() async throws {
        try await withBus { _, client, server in
            let received = Gate()
            try server.export("/test/silent", interfaces: [
                DBusInterface("org.example.Silent", methods: [
                    DBusMethod("Wait", in: "", out: "") { _ in
                        received.open()
                        try await Task.sleep(for: .seconds(60))
                        return []
                    }
                ])
            ])
            let remote = DBusRemoteObject(connection: client, destination: server.uniqueName, path: "/test/silent")
            let waiting = Task(executorPreference: client.executor) { () -> DBusError? in
                do throws(DBusError) {
                    _ = try await remote.call("org.example.Silent", "Wait", [])
                    return nil
                } catch {
                    return error
                }
            }
            try await received.wait(within: 10)
            await client.close()
            let error = try await within(10, "the waiting call to fail") { await waiting.value }
            guard case .disconnected = error else {
                Issue.record("expected disconnected, got \(String(describing: error))")
                return
            }
            // (Which thread runs it is not asserted: a new thread may reuse the old one's id.)
            let steps = try await within(10, "a task on the closed connection's executor") {
                try await withTaskExecutorPreference(client.executor) {
                    var steps = 0
                    for _ in 0..<3 {
                        try await Task.sleep(for: .milliseconds(1))
                        steps += 1
                    }
                    return steps
                }
            }
            #expect(steps == 3)
        }
    }
}
