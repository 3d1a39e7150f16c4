/// Stops the process with `message` when a property a target asserts does not hold: the
/// trap is a crash to libFuzzer, which saves the input.
public func check(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("fuzz property violated: \(message())", file: file, line: line) }
}

/// Runs `body` on a copy of libFuzzer's input; the entry point's return value.
public func withFuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
    body(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
