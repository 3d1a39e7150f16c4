/// How many faults of each kind the soak put on the line.
struct FaultCounts {
    var noise = 0
    var falseStarts = 0
    var corruptedAnswers = 0
    var reconnections = 0
}
