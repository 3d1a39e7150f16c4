/// Every way a value commonly reaches a log: interpolation, `String(describing:)`,
/// `String(reflecting:)` and `dump()`.
func renderings(of value: some Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return ["\(value)", String(describing: value), String(reflecting: value), dumped]
}

/// Whether any rendering of `value` contains any of `secrets`.
func anyRendering(of value: some Any, contains secrets: [String]) -> Bool {
    renderings(of: value).contains { rendering in secrets.contains { rendering.contains($0) } }
}

/// Upper-case hex of `bytes` without separators, as a leaking description might print them.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
}
