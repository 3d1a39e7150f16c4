/// The dispatch thread as a task executor: a task that prefers it runs between the loop's
/// reads, so a reply or signal the thread has just read resumes that task on the same
/// thread, without waking another, as a blocking libdbus call would.
extension DBusDispatchLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !submit(.job(job)) {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    func run(_ work: Work) {
        switch work {
        case .command(let command):
            command(self)
        case .job(let job):
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Work queued as the loop ended: commands run against the dead loop (and fail their
    /// callers with `.disconnected`); jobs move to the global executor, so no task waits
    /// on a thread that has gone.
    func runAfterTermination(_ work: Work) {
        guard case .job(let job) = work else { return run(work) }
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
}
