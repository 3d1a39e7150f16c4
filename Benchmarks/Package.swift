// swift-tools-version:6.0
import Foundation
import PackageDescription

// Benchmarks live in their own package so the SDK's users do not fetch their
// dependencies. Run `Benchmarks/run` from the repository root.

// A path dependency is named after its folder, which depends on where the SDK was cloned.
let sdk = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "CardReaderKitBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "FramingReference"),
        .executableTarget(
            name: "FramingBenchmark",
            dependencies: [
                "FramingReference",
                .product(name: "ReaderProtocol", package: sdk),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
        .target(name: "ProcessProbe"),
        .target(name: "SoakSupport", dependencies: ["ProcessProbe"]),
        .executableTarget(
            name: "SoakBenchmark",
            dependencies: [
                .product(name: "CardReaderKit", package: sdk), .product(name: "CardReaderKitTesting", package: sdk),
                .product(name: "Logging", package: "swift-log"), "SoakSupport",
            ]
        ),
        .executableTarget(
            name: "ConnectionSoak",
            dependencies: [
                .product(name: "CardReaderKit", package: sdk), .product(name: "Logging", package: "swift-log"), "SoakSupport",
            ]
        ),
        .executableTarget(
            name: "MinimalBackend",
            dependencies: [
                .product(name: "CardReaderKit", package: sdk), .product(name: "CardReaderKitTesting", package: sdk),
            ]
        ),
        .executableTarget(
            name: "FirmwareBenchmark",
            dependencies: [
                .product(name: "CardReaderKit", package: sdk), .product(name: "CardReaderKitTesting", package: sdk),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "LinkBenchmark",
            dependencies: [.product(name: "CardReaderKit", package: sdk), .product(name: "_BLETransport", package: sdk)]
        ),
        .executableTarget(
            name: "TransmitBenchmark",
            dependencies: [.product(name: "CardReaderKit", package: sdk), .product(name: "CardReaderKitTesting", package: sdk)]
        ),
        .executableTarget(
            name: "DBusBenchmark",
            dependencies: [.product(name: "_BLETransport", package: sdk)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
