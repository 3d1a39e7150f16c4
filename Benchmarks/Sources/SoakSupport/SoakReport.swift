/// A soak's table: figures at the start, every 10 % of the operations, and the end.
public struct SoakReport {
    let total: Int
    let budget: Int
    let clock: CountingClock
    private var first: ProcessFigures?
    private var last: ProcessFigures?
    private var nextTenth = 0

    public init(total: Int, budget: Int, clock: CountingClock) {
        self.total = total
        self.budget = budget
        self.clock = clock
        print("progress   operations        heap         RSS   fds  threads  timers asleep")
    }

    /// Records and prints the figures when `done` reaches the next tenth of the total.
    public mutating func checkpoint(done: Int) {
        guard done * 10 >= nextTenth * total, nextTenth <= 10 else { return }
        record(label: "\(nextTenth * 10) %", done: done)
        nextTenth += 1
    }

    /// Figures once the link is closed.
    public mutating func finish() {
        record(label: "closed", done: total)
    }

    /// Heap and RSS growth from start to end, beside the budget.
    public func printGrowth() {
        guard let first, let last else { return }
        let heap = last.heapBytes - first.heapBytes
        let resident = last.residentBytes - first.residentBytes
        print(
            "growth: heap \(Self.bytes(heap)) (\(Self.ratio(heap, budget)) of the 1 MB budget), RSS \(Self.bytes(resident)) "
                + "(\(Self.ratio(resident, budget))), fds \(last.openFileDescriptors - first.openFileDescriptors), "
                + "threads \(last.threads - first.threads), timers asleep \(last.sleepingTimers - first.sleepingTimers)")
        for (number, target) in last.fileDescriptors.sorted(by: { $0.key < $1.key })
        where first.fileDescriptors[number] != target {
            print("file descriptor \(number) opened during the soak: \(target)")
        }
        print(withinBudget ? "within budget" : "OVER BUDGET")
    }

    public var withinBudget: Bool {
        guard let first, let last else { return false }
        // Timers are not held to their start: a reader's timer task is never cancelled but
        // ends at its deadline, so a few may still sleep after the link closes.
        return last.heapBytes - first.heapBytes < budget && last.openFileDescriptors <= first.openFileDescriptors
            && last.threads <= first.threads
    }

    private mutating func record(label: String, done: Int) {
        let figures = ProcessFigures.now(clock: clock)
        if first == nil { first = figures }
        last = figures
        print(
            Self.pad(label, 8) + Self.pad("\(done)", 13) + Self.pad(Self.bytes(figures.heapBytes), 12)
                + Self.pad(Self.bytes(figures.residentBytes), 12) + Self.pad("\(figures.openFileDescriptors)", 6)
                + Self.pad("\(figures.threads)", 9) + Self.pad("\(figures.sleepingTimers)", 15))
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private static func bytes(_ count: Int) -> String {
        let magnitude = abs(count)
        if magnitude >= 1 << 20 { return "\(count / (1 << 20)).\(magnitude % (1 << 20) * 10 / (1 << 20)) MB" }
        if magnitude >= 1 << 10 { return "\(count / (1 << 10)) kB" }
        return "\(count) B"
    }

    private static func ratio(_ part: Int, _ whole: Int) -> String {
        "\(part * 100 / whole) %"
    }
}

/// A soak that could not go on: what went wrong.
public struct SoakFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Duration {
    /// Seconds with one decimal.
    public var formatted: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        return "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
