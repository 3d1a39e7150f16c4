// swift-tools-version:6.0
import PackageDescription

/// Every target: an import missing from a file is an error, not something another file's
/// import hides.
let strictImports: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "CardReaderKit",
    products: [
        // The reader over BlueZ, with the protocol's types: what a point-of-sale backend links.
        .library(name: "CardReaderKit", targets: ["CardReaderKit"]),
        // The emulated reader and a manual clock, for a backend's tests.
        .library(name: "CardReaderKitTesting", targets: ["CardReaderKitTesting"]),
        .library(name: "ReaderProtocol", targets: ["ReaderProtocol"]),
        // BlueZ and D-Bus themselves: no API promise, for the benchmarks beside the package.
        .library(name: "_BLETransport", targets: ["BLETransport"]),
        .executable(name: "readerctl", targets: ["readerctl"]),
        // readerctl's output and exit statuses, for the service's terminal client (Daemon/): no API promise.
        .library(name: "_CommandLineOutput", targets: ["CommandLineOutput"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // `swift package generate-documentation`: the DocC catalogs of CardReaderKit and ReaderProtocol.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "ReaderProtocol", swiftSettings: strictImports),
        // readerctl's output (`key: value` lines, JSON) and exit statuses, shared with the
        // service's terminal client.
        .target(name: "CommandLineOutput", dependencies: ["CardReaderCore"], swiftSettings: strictImports),
        // An injected clock as elapsed time, deadlines, and a time line of timed actions: what
        // the reader core, the emulated reader and D-Bus calls wait with.
        .target(name: "Timing", swiftSettings: strictImports),
        // libdbus's API, declared by the project and loaded at run time: building needs no
        // libdbus headers, and nothing links libdbus.
        .target(name: "CDBus"),
        // The logger the SDK uses when a backend gives none: it logs nothing.
        .target(
            name: "DisabledLogging", dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: strictImports),
        // The package's one lock, shared by BLETransport, the testing product and readerctl.
        .target(name: "Locking", swiftSettings: strictImports),
        // What a child process started with posix_spawn inherits: its standard streams only
        // (readerctl doctor's programs, the tests' lrzsz).
        .target(name: "ProcessSpawning", swiftSettings: strictImports),
        .target(
            name: "BLETransport",
            dependencies: [
                "DisabledLogging",
                "CDBus",
                "Locking",
                "Timing",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        // The reader, its link abstraction, firmware update and EMV: no transport in it.
        .target(
            name: "CardReaderCore",
            dependencies: [
                "DisabledLogging",
                "ReaderProtocol",
                "Timing",
                .product(name: "Logging", package: "swift-log"),
                // CoreMetrics, not Metrics: the API without Foundation.
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictImports
        ),
        // The one place the core meets BlueZ: connector, fleet, the link over GATT.
        .target(
            name: "CardReaderKit",
            dependencies: [
                "DisabledLogging",
                "CardReaderCore",
                "BLETransport",
                "Locking",
                "Timing",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        // The emulated reader and the manual clock, on the core alone.
        .target(
            name: "CardReaderKitTesting",
            dependencies: [
                "DisabledLogging",
                "CardReaderCore",
                "Locking",
                "Timing",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        // The emulated reader served as a BLE peripheral through bluetoothd (readerctl emulate).
        .target(
            name: "EmulatedPeripheral",
            dependencies: [
                "DisabledLogging",
                "CardReaderKitTesting",
                "BLETransport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        .executableTarget(
            name: "readerctl",
            dependencies: [
                "CardReaderKit",
                "CommandLineOutput",
                "CardReaderKitTesting",
                "EmulatedPeripheral",
                "BLETransport",
                "Locking",
                "ProcessSpawning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        // Spawns lrzsz's rb and sb for the YModem interoperability tests.
        .target(
            name: "ChildProcessSupport", dependencies: ["ProcessSpawning"], path: "Tests/Support/ChildProcessSupport",
            swiftSettings: strictImports),
        // Which tests run (the long ones only with CARDREADERKIT_LONG_TESTS=1), and blocking
        // waits kept off the cooperative pool that every test's tasks share.
        .target(name: "TestEnvironment", path: "Tests/Support/TestEnvironment", swiftSettings: strictImports),
        // Stepping a ManualClock through the timings of the code under test, never through a
        // deadline it does not exercise; how long a test waits for in-process work.
        .target(
            name: "ManualClockSteps", dependencies: ["CardReaderKitTesting", "Locking"], path: "Tests/Support/ManualClockSteps",
            swiftSettings: strictImports),
        // A private dbus-daemon and a fake bluetoothd on it, for the D-Bus, BlueZ and readerctl tests.
        .target(
            name: "BlueZTestSupport", dependencies: ["BLETransport", "ChildProcessSupport", "Locking", "TestEnvironment"], path: "Tests/Support/BlueZTestSupport",
            swiftSettings: strictImports),
        .testTarget(
            name: "ReaderProtocolTests", dependencies: ["ReaderProtocol", "ChildProcessSupport", "TestEnvironment"],
            swiftSettings: strictImports),
        .testTarget(
            name: "BLETransportTests",
            dependencies: [
                "BLETransport", "CDBus", "Locking", "BlueZTestSupport", "TestEnvironment", "CardReaderKitTesting", "ManualClockSteps",
            ],
            swiftSettings: strictImports),
        .testTarget(
            name: "CardReaderKitTests",
            dependencies: [
                "CardReaderCore", "CardReaderKit", "CardReaderKitTesting", "EmulatedPeripheral", "BLETransport",
                "Locking", "Timing", "ChildProcessSupport", "BlueZTestSupport", "TestEnvironment", "ManualClockSteps",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictImports),
        .testTarget(
            name: "readerctlTests", dependencies: ["BLETransport", "BlueZTestSupport", "ChildProcessSupport", "TestEnvironment"], exclude: ["Help"],
            swiftSettings: strictImports),
        .testTarget(
            name: "BlueZIntegrationTests",
            dependencies: ["CardReaderKit", "CardReaderKitTesting", "EmulatedPeripheral", "BLETransport", "ChildProcessSupport"],
            swiftSettings: strictImports),
    ],
    swiftLanguageModes: [.v6]
)
