/// How long a test waits, in real time, for in-process work to reach a point — a task
/// asleep on a manual clock, packets written, notifications handled: a bound that keeps a
/// broken test from hanging, never a timing. The work takes milliseconds alone; in a suite
/// run with every core busy it was seen to take seconds.
package enum WaitBound {
    package static let inProcess = Duration.seconds(60)
}
