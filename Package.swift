// swift-tools-version:6.0
import PackageDescription

/// Every target: an import missing from a file is an error, not something another file's
/// import hides.
let strictImports: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "CardReaderKit",
    products: [
        .library(name: "CardReaderKit", targets: ["CardReaderKit"]),
        .library(name: "ReaderProtocol", targets: ["ReaderProtocol"]),
        .library(name: "BLETransport", targets: ["BLETransport"]),
        .executable(name: "readerctl", targets: ["readerctl"]),
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
        // libdbus's API, declared by the project and loaded at run time: building needs no
        // libdbus headers, and nothing links libdbus.
        .target(name: "CDBus"),
        .target(
            name: "BLETransport",
            dependencies: [
                "CDBus",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        .target(
            name: "CardReaderKit",
            dependencies: [
                "ReaderProtocol",
                "BLETransport",
                .product(name: "Logging", package: "swift-log"),
                // CoreMetrics, not Metrics: the API without Foundation.
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictImports
        ),
        .executableTarget(
            name: "readerctl",
            dependencies: [
                "CardReaderKit",
                "BLETransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        // Spawns lrzsz's rb and sb for the YModem interoperability tests.
        .target(name: "ChildProcessSupport", path: "Tests/Support/ChildProcessSupport", swiftSettings: strictImports),
        // A private dbus-daemon and a fake bluetoothd on it, for the D-Bus, BlueZ and readerctl tests.
        .target(
            name: "BlueZTestSupport", dependencies: ["BLETransport"], path: "Tests/Support/BlueZTestSupport",
            swiftSettings: strictImports),
        .testTarget(
            name: "ReaderProtocolTests", dependencies: ["ReaderProtocol", "ChildProcessSupport"],
            swiftSettings: strictImports),
        .testTarget(
            name: "BLETransportTests", dependencies: ["BLETransport", "CDBus", "BlueZTestSupport"],
            swiftSettings: strictImports),
        .testTarget(
            name: "CardReaderKitTests",
            dependencies: [
                "CardReaderKit", "BLETransport", "ChildProcessSupport", "BlueZTestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictImports),
        .testTarget(name: "readerctlTests", dependencies: ["BLETransport", "BlueZTestSupport"], swiftSettings: strictImports),
        .testTarget(name: "BlueZIntegrationTests", dependencies: ["CardReaderKit", "BLETransport"], swiftSettings: strictImports),
    ],
    swiftLanguageModes: [.v6]
)
