// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierURLSession", targets: ["CourierURLSession"]),
        .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierMacros", targets: ["CourierMacros"]),
        .library(name: "CourierSigning", targets: ["CourierSigning"]),
        .library(name: "CourierMetrics", targets: ["CourierMetrics"]),
        .library(name: "CourierTracing", targets: ["CourierTracing"]),
        .library(name: "CourierCombine", targets: ["CourierCombine"]),
        .library(name: "CourierDependencies", targets: ["CourierDependencies"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .executable(name: "courier-demo", targets: ["CourierDemo"]),
        .executable(name: "courier-bench", targets: ["CourierBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // MARK: Core — depends only on swift-http-types, swift-openapi-runtime and swift-log.
        .target(
            name: "Courier",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Transports
        .target(
            name: "CourierURLSession",
            dependencies: [
                "Courier",
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "CourierAsyncHTTPClient",
            dependencies: [
                "Courier",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // MARK: Middleware with dependencies of their own (one product each, so the core stays light)
        .target(name: "CourierSigning", dependencies: ["Courier", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "CourierMetrics", dependencies: ["Courier", .product(name: "Metrics", package: "swift-metrics")]),
        .target(
            name: "CourierTracing",
            dependencies: ["Courier", .product(name: "Tracing", package: "swift-distributed-tracing")]
        ),

        // MARK: Adapters (one product each)
        .target(
            name: "CourierCombine",
            dependencies: [
                "Courier",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux, .windows, .android])),
            ]
        ),
        .target(
            name: "CourierDependencies",
            dependencies: ["Courier", "CourierTesting", .product(name: "Dependencies", package: "swift-dependencies")]
        ),
        .target(
            name: "CourierOpenAPI",
            dependencies: ["Courier", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")]
        ),

        // MARK: Testing kit
        .target(name: "CourierTesting", dependencies: ["Courier"]),

        // MARK: Macros
        .macro(
            name: "CourierMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "CourierMacros",
            dependencies: [
                "Courier", "CourierMacrosPlugin",
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
            ]
        ),

        // MARK: Executables
        .executableTarget(
            name: "CourierDemo",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierURLSession", "CourierMacros", "CourierTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "CourierBench",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierURLSession", "CourierMacros",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),

        // MARK: Tests
        .target(
            name: "CourierTestServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/CourierTestServer"
        ),
        .testTarget(
            name: "CourierTests",
            dependencies: ["Courier", "CourierTesting", .product(name: "InMemoryLogging", package: "swift-log")]
        ),
        .testTarget(name: "CourierCombineTests", dependencies: ["CourierCombine", "CourierTesting"]),
        .testTarget(
            name: "CourierDependenciesTests",
            dependencies: ["CourierDependencies", "CourierTesting", .product(name: "Dependencies", package: "swift-dependencies")]
        ),
        .testTarget(name: "CourierOpenAPITests", dependencies: ["CourierOpenAPI", "CourierTesting"]),
        .testTarget(name: "CourierSigningTests", dependencies: ["CourierSigning", "CourierTesting"]),
        .testTarget(
            name: "CourierMetricsTests",
            dependencies: ["CourierMetrics", "CourierTesting", .product(name: "MetricsTestKit", package: "swift-metrics")]
        ),
        .testTarget(
            name: "CourierTracingTests",
            dependencies: [
                "CourierTracing", "CourierTesting",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "CourierIntegrationTests",
            dependencies: [
                "Courier", "CourierURLSession", "CourierAsyncHTTPClient", "CourierTesting", "CourierTestServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                "CourierSigning", "CourierMetrics", "CourierTracing",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "CourierMacrosPluginTests",
            dependencies: [
                "CourierMacrosPlugin",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
            ]
        ),
        .testTarget(
            name: "CourierMacrosTests",
            dependencies: [
                "Courier", "CourierMacros", "CourierTesting", "CourierTestServer", "CourierAsyncHTTPClient",
                "CourierURLSession",
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
            ]
        ),
    ]
)

// Every target: Swift 6 language mode, strict concurrency, explicit `any`.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
