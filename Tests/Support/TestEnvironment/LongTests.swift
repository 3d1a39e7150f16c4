#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tests that take long — the card-data audit over every scenario, firmware transfers that
/// wait out real deadlines — run only when `CARDREADERKIT_LONG_TESTS=1`, which `.ci/run`
/// sets: `swift test` stays quick, and nothing leaves CI. A suite or test opts in with
/// `.enabled(if: LongTests.enabled, Comment(rawValue: LongTests.reason))`.
package enum LongTests {
    /// Whether `CARDREADERKIT_LONG_TESTS` is `1`.
    package static var enabled: Bool {
        getenv("CARDREADERKIT_LONG_TESTS").map { String(cString: $0) == "1" } ?? false
    }

    /// Why the test was skipped, as `swift test` shows it.
    package static let reason = "a long test: CARDREADERKIT_LONG_TESTS=1 swift test runs it, as .ci/run does"
}
