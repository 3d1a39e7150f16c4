// swift-tools-version:6.0
import PackageDescription

/// libFuzzer targets for every parser that takes bytes from outside. Build and run them with
/// `Scripts/fuzz` (it passes `-sanitize=fuzzer,address`, which this manifest cannot set for
/// the main package's modules); see README.md.
let fuzzTargets: [(name: String, products: [String])] = [
    ("frame-decoder", ["ReaderProtocol"]),
    ("frame-roundtrip", ["ReaderProtocol"]),
    ("reader-message", ["ReaderProtocol"]),
    ("ber-tlv", ["ReaderProtocol"]),
    ("emv-read", ["ReaderProtocol", "CardReaderKit"]),
    ("track-data", ["ReaderProtocol"]),
    ("atr", ["ReaderProtocol"]),
    ("packet-text", ["ReaderProtocol"]),
    ("btsnoop", ["ReaderProtocol"]),
    ("card-file", ["ReaderProtocol", "CardReaderKit"]),
    ("dbus-message", ["BLETransport"]),
]

let package = Package(
    name: "CardReaderKitFuzz",
    dependencies: [.package(name: "CardReaderKit", path: "..")],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "ReaderProtocol", package: "CardReaderKit"),
                .product(name: "CardReaderKit", package: "CardReaderKit"),
            ]
        )
    ]
        + fuzzTargets.map { target in
            .executableTarget(
                name: target.name,
                dependencies: ["FuzzSupport"]
                    + target.products.map { .product(name: $0, package: "CardReaderKit") }
            )
        },
    swiftLanguageModes: [.v6]
)
