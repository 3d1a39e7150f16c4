// The reference for readerctl's start-up: the smallest Swift program that runs async
// code and prints a line, built by the same toolchain, linked the same way.
func greet() async { print("ready") }
await greet()
