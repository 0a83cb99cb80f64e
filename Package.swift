// swift-tools-version:6.1
import PackageDescription

// Swift 6 language mode everywhere: strict concurrency checking is part of the contract.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "lifelog",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "lifelog", targets: ["lifelog"]),
        .library(name: "API", targets: ["API"]),
    ],
    dependencies: [
        // One named trait keeps SwiftPM's flag order stable, so Hummingbird is not rebuilt every other build.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.30.0"),
        // Already in the graph through Hummingbird; named so the API can map NIO's request errors.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(name: "Domain", swiftSettings: swiftSettings),
        // The system's zlib, for gzip answers (the dashboard's files, large JSON reads) and the
        // sealed event payloads, compressed before they are sealed.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(
            name: "EventStore",
            dependencies: [
                "CZlib",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Projections",
            dependencies: ["Domain", "EventStore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Core",
            dependencies: [
                "Domain", "EventStore", "Projections",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "API",
            dependencies: [
                "Core", "Projections", "Domain", "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The OpenAPI document's YAML files and the dashboard's files (HTML, ES modules, CSS,
            // the service worker); .copy keeps the folders (.process would flatten them).
            resources: [.copy("OpenAPI"), .copy("Web")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "lifelog",
            dependencies: [
                "API", "Core", "Projections", "EventStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "lifelog-bench",
            dependencies: [
                "EventStore", "Projections", "API", "Core", "Domain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "bench/Sources/lifelog-bench",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: ["EventStore", "Projections", "API", "Core", "Domain", .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DomainTests", dependencies: ["Domain"], swiftSettings: swiftSettings),
        .testTarget(
            name: "EventStoreTests", dependencies: ["EventStore", "TestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ProjectionsTests",
            dependencies: ["API", "Projections", "EventStore", "TestSupport", .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "APITests",
            dependencies: [
                "API", "Core", "Domain", "TestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
