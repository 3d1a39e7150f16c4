internal import CLibFuzzer

/// What libFuzzer passes a target: the input's bytes and count; returns 0.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// The command line, as C hands it to `main`.
public typealias CArguments = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

/// A target's `main`: writes its seeds when `Scripts/fuzz` asks for them (see ``Seeds``),
/// and otherwise hands the command line to libFuzzer, which runs `test`.
public func fuzzerMain(
    _ argc: CInt, _ argv: CArguments, test: FuzzTest, seeds: (Fixtures) throws -> [[UInt8]]
) -> CInt {
    Seeds.writeIfRequested(seeds)
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, test)
}
