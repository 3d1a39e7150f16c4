// swift-tools-version:6.0
import Foundation
import PackageDescription

// cardreaderd, the service every point-of-sale process shares, and its terminal client: a
// package of their own, so that the SDK's users resolve and build no gRPC.

/// Release builds link the Swift runtime in, for the installed programs and the driver pcscd
/// loads to need no toolchain beside them: at link time only, so that the tests, built by the
/// same build, link it dynamically as Swift Testing needs (SwiftPM's --static-swift-stdlib
/// would build everything for static linking, and leaves dynamic libraries out).
/// FoundationEssentials' own dependencies are named, as the compiler names them only when it
/// compiles for static linking.
let staticRuntime: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims"], .when(configuration: .release))
]

// A path dependency is named after its folder, which depends on where the SDK was cloned.
let sdk = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

/// Every target: an import missing from a file is an error, not something another file's
/// import hides.
let strictImports: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "CardReaderDaemon",
    products: [
        .executable(name: "cardreaderd", targets: ["cardreaderd"]),
        .executable(name: "cardreaderctl", targets: ["cardreaderctl"]),
        // The pcsc-lite driver, libcardreaderd-ifd.so (Scripts/build names it; pcscd loads it).
        .library(name: "cardreaderd-ifd", type: .dynamic, targets: ["CardReaderPCSCDriver"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // The contract's messages and stubs, generated from Proto/ and committed.
        .target(
            name: "CardReaderContract",
            dependencies: [
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strictImports),
        // The service: readers held as lanes, leases, who may do what.
        .target(
            name: "CardReaderService",
            dependencies: [
                "CardReaderContract",
                .product(name: "CardReaderKit", package: sdk),
                .product(name: "CardReaderKitTesting", package: sdk),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictImports),
        .executableTarget(
            name: "cardreaderd",
            dependencies: [
                "CardReaderService",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictImports, linkerSettings: staticRuntime),
        .executableTarget(
            name: "cardreaderctl",
            dependencies: [
                "CardReaderContract",
                .product(name: "_CommandLineOutput", package: sdk),
                .product(name: "CardReaderKit", package: sdk),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictImports, linkerSettings: staticRuntime),
        // The pcsc-lite IFD handler: the chip slot of each reader cardreaderd holds, as a
        // PC/SC reader, through the service. CardReaderPCSC is the driver; the library's
        // target only exports it to pcscd, with the Swift runtime linked in (the static
        // Foundation links only optimised) and never unloaded (pcscd may dlclose it while
        // the runtime's threads remain).
        .target(name: "CPCSCDriverInterface"),
        .target(
            name: "CardReaderPCSC",
            dependencies: [
                "CPCSCDriverInterface",
                "CardReaderContract",
                .product(name: "ReaderProtocol", package: sdk),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictImports),
        .target(
            name: "CardReaderPCSCDriver",
            dependencies: ["CardReaderPCSC", "CPCSCDriverInterface"],
            swiftSettings: strictImports,
            linkerSettings: staticRuntime + [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "nodelete"])]),
        .testTarget(
            name: "CardReaderPCSCTests",
            dependencies: [
                "CardReaderPCSC",
                "CPCSCDriverInterface",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictImports),
        .testTarget(
            name: "CardReaderServiceTests",
            dependencies: [
                "CardReaderService",
                "CardReaderContract",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCInProcessTransport", package: "grpc-swift-2"),
            ],
            swiftSettings: strictImports),
    ]
)
