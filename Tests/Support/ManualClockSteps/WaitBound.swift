/// How long a test waits, in real time, for in-process work to reach a point — a task
/// asleep on a manual clock, packets written, notifications handled: a bound that keeps a
/// broken test from hanging, never a timing. The work takes milliseconds alone; in a whole
/// suite run on a 2-core machine with both cores busy (`Scripts/repeat-tests --load always
/// --long`) it was measured taking up to 12 s: five times that.
package enum WaitBound {
    package static let inProcess = Duration.seconds(60)
}
